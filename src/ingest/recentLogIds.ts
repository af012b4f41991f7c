// The log_ids accepted in the last 10 minutes, per workspace, for idempotent retries.
// Kept in one-minute generations: a lookup checks them all, and a generation is dropped
// once everything in it is older than the window. Only the group-commit writer touches
// it, one flush at a time, so "seen" and "stored" never disagree.

export const DEDUP_WINDOW_MS = 10 * 60_000;
const GENERATION_MS = 60_000;

interface Generation {
  /** Start of the minute this generation covers. */
  readonly minute: number;
  /** workspace id → log ids */
  readonly ids: Map<string, Set<string>>;
}

export class RecentLogIds {
  private generations: Generation[] = [];
  private count = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** How many ids are remembered. */
  get size(): number {
    return this.count;
  }

  has(workspaceId: string, logId: string): boolean {
    this.expire();
    return this.generations.some((g) => g.ids.get(workspaceId)?.has(logId) === true);
  }

  /** Remembers an id as accepted at `acceptedAt` (default now). */
  add(workspaceId: string, logId: string, acceptedAt: number = this.now()): void {
    const minute = Math.floor(acceptedAt / GENERATION_MS) * GENERATION_MS;
    if (minute <= this.now() - DEDUP_WINDOW_MS - GENERATION_MS) return;
    let generation = this.generations.find((g) => g.minute === minute);
    if (!generation) {
      generation = { minute, ids: new Map() };
      this.generations.push(generation);
      this.generations.sort((a, b) => b.minute - a.minute);
    }
    let ids = generation.ids.get(workspaceId);
    if (!ids) {
      ids = new Set();
      generation.ids.set(workspaceId, ids);
    }
    if (!ids.has(logId)) {
      ids.add(logId);
      this.count++;
    }
  }

  private expire(): void {
    // A generation is dropped when its newest possible id is older than the window.
    const oldestKept = this.now() - DEDUP_WINDOW_MS - GENERATION_MS;
    while (this.generations.length > 0 && this.generations[this.generations.length - 1]!.minute <= oldestKept) {
      const dropped = this.generations.pop()!;
      for (const ids of dropped.ids.values()) this.count -= ids.size;
    }
  }
}
