// OTLP and remote-write declare a metric's dimensions on first sight (docs/fleets.md): the
// attribute keys (labels) of its points, those a declaration may hold, in their stable order,
// at most 8, when its first points arrive and it has none. Declared before the points are
// journaled, so the writer labels those first points too. A later PUT replaces them; a name
// declared here or found declared is not looked up again by this process.
import { keyProblem, MAX_DIMENSION_KEYS } from './model.js';
import type { Queryable } from '../stores/postgres.js';

/** Names remembered per process; past it the memory starts again (a lookup more, nothing wrong). */
const MAX_REMEMBERED = 200_000;

/** The keys a metric's point keys declare: valid ones, each once, in order, at most 8. */
export function firstSightKeys(pointKeys: readonly string[]): string[] {
  const keys: string[] = [];
  for (const key of pointKeys) {
    if (keys.length === MAX_DIMENSION_KEYS) break;
    if (keyProblem(key) === null && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

export class FirstSightDimensions {
  private readonly known = new Set<string>();

  constructor(
    private readonly postgres: Queryable,
    /** Told when a declaration was made (this process's writer reads them again). */
    private readonly declared: () => void,
  ) {}

  /** Declares the keys of the names of `pointKeys` that have no declaration yet. */
  async declare(workspaceId: string, pointKeys: ReadonlyMap<string, readonly string[]>): Promise<void> {
    const events: string[] = [];
    const keyLists: string[] = [];
    for (const [event, keys] of pointKeys) {
      const memo = `${workspaceId}\u0000${event}`;
      if (this.known.has(memo)) continue;
      events.push(event);
      keyLists.push(JSON.stringify(firstSightKeys(keys)));
    }
    if (events.length === 0) return;
    const made = await this.postgres.query<{ event: string }>(
      `INSERT INTO dimensions (workspace_id, event, keys, on_first_sight)
       SELECT $1, e.event, ARRAY(SELECT jsonb_array_elements_text(e.keys::jsonb)), true
       FROM unnest($2::text[], $3::text[]) AS e (event, keys)
       ON CONFLICT (workspace_id, event) DO NOTHING RETURNING event`,
      [workspaceId, events, keyLists],
    );
    if (this.known.size + events.length > MAX_REMEMBERED) this.known.clear();
    for (const event of events) this.known.add(`${workspaceId}\u0000${event}`);
    if (made.length > 0) this.declared();
  }

  /** A declaration of the name was removed in this process: its next points declare again. */
  forget(workspaceId: string, event: string): void {
    this.known.delete(`${workspaceId}\u0000${event}`);
  }
}
