// What a statement runs on: the store, or a transaction of it (src/stores/postgres.ts).
export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one statement with bound parameters ($1, $2, …) and returns its rows. */
  query<R extends object = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
}
