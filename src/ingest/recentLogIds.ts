// The log_ids accepted in the last 10 minutes, per workspace, for idempotent retries.
// Kept in one-minute generations: a lookup checks them all, and a generation is dropped
// once everything in it is older than the window. Ids live as 16 raw bytes in open-addressing
// tables (about 16-30 bytes each, against ~77 as JavaScript strings in a Set), and their
// number is capped: past `maxIds` the oldest generation goes early and the window shrinks,
// which windowMs() reports, rather than the process running out of memory.

export const DEDUP_WINDOW_MS = 10 * 60_000;
const GENERATION_MS = 60_000;

/** A hash set of UUIDs as four 32-bit words each; an all-zero slot is empty. Ids are read at `w[at..at+4)`. */
class UuidSet {
  private slots: Int32Array;
  private mask: number;
  private count = 0;
  private hasNil = false;

  constructor(capacity = 256) {
    this.slots = new Int32Array(capacity * 4);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count + (this.hasNil ? 1 : 0);
  }

  /** Whether the id is here; `h` is its hash(). */
  has(w: Int32Array, at: number, h: number): boolean {
    if (isNil(w, at)) return this.hasNil;
    return this.slotOf(w, at, h) >= 0;
  }

  /** Adds the id (`h` its hash()); false when it was there already. One probe finds it or the empty slot it takes. */
  add(w: Int32Array, at: number, h: number): boolean {
    if (isNil(w, at)) {
      const added = !this.hasNil;
      this.hasNil = true;
      return added;
    }
    if ((this.count + 1) * 10 > (this.mask + 1) * 7) this.grow();
    const slot = this.slotOf(w, at, h);
    if (slot >= 0) return false;
    this.put(w, at, -1 - slot);
    this.count++;
    return true;
  }

  private put(w: Int32Array, at: number, slot: number): void {
    const { slots } = this;
    slots[slot * 4] = w[at]!;
    slots[slot * 4 + 1] = w[at + 1]!;
    slots[slot * 4 + 2] = w[at + 2]!;
    slots[slot * 4 + 3] = w[at + 3]!;
  }

  /** The id's slot; when it is not here, -1 minus the empty slot where it would go. */
  private slotOf(w: Int32Array, at: number, h: number): number {
    const { slots, mask } = this;
    const w0 = w[at]!;
    const w1 = w[at + 1]!;
    const w2 = w[at + 2]!;
    const w3 = w[at + 3]!;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = i * 4;
      if (slots[s] === w0 && slots[s + 1] === w1 && slots[s + 2] === w2 && slots[s + 3] === w3) return i;
      if (slots[s] === 0 && slots[s + 1] === 0 && slots[s + 2] === 0 && slots[s + 3] === 0) return -1 - i;
    }
  }

  private grow(): void {
    const old = this.slots;
    const capacity = (this.mask + 1) * 2;
    this.slots = new Int32Array(capacity * 4);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += 4) {
      if (isNil(old, at)) continue;
      this.put(old, at, -1 - this.slotOf(old, at, hash(old, at)));
    }
  }
}

/** The smallest power of two, 256 at least, that holds `count` ids within the load factor. */
function capacityFor(count: number): number {
  let capacity = 256;
  while (count * 10 > capacity * 7) capacity *= 2;
  return capacity;
}

const isNil = (w: Int32Array, at: number) => w[at] === 0 && w[at + 1] === 0 && w[at + 2] === 0 && w[at + 3] === 0;

/** murmur3's finaliser over the words of the id at `w[at..at+4)`; UUIDv7 ids share their leading time bits. */
function hash(w: Int32Array, at: number): number {
  let h = w[at]! ^ Math.imul(w[at + 1]!, 0x85ebca6b) ^ Math.imul(w[at + 2]!, 0xc2b2ae35) ^ Math.imul(w[at + 3]!, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const HEX_DIGIT = new Int8Array(128);
for (let d = 0; d < 16; d++) {
  HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_DIGIT['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/** The 32-bit word of hex digits [from, to) of `id` (eight digits at most), after `high`'s. */
function hexWord(id: string, from: number, to: number, high = 0): number {
  let word = high;
  for (let i = from; i < to; i++) word = (word << 4) | HEX_DIGIT[id.charCodeAt(i)]!;
  return word;
}

/** A lower- or upper-case UUID string (8-4-4-4-12, as validated) as four 32-bit words, written to `out` from `at`. */
export function uuidWords(id: string, out: Int32Array = new Int32Array(4), at = 0): Int32Array {
  out[at] = hexWord(id, 0, 8);
  out[at + 1] = hexWord(id, 14, 18, hexWord(id, 9, 13));
  out[at + 2] = hexWord(id, 24, 28, hexWord(id, 19, 23));
  out[at + 3] = hexWord(id, 28, 36);
  return out;
}

/** One workspace's remembered ids as they are now, for the lookups of one batch. */
export class RememberedIds {
  /** @param sets the workspace's ids of each generation, newest first */
  constructor(private readonly sets: readonly UuidSet[]) {}

  /** Whether the id at `words[at..at+4)` (uuidWords) is remembered. */
  has(words: Int32Array, at = 0): boolean {
    const h = hash(words, at);
    for (const set of this.sets) if (set.has(words, at, h)) return true;
    return false;
  }
}

interface Generation {
  /** Start of the minute this generation covers. */
  readonly minute: number;
  readonly ids: Map<string, UuidSet>;
}

export class RecentLogIds {
  /** Newest first. */
  private generations: Generation[] = [];
  private count = 0;
  /** Minute of the newest generation dropped early because of the cap. */
  private cutMinute: number | null = null;

  constructor(
    private readonly maxIds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many ids are remembered. */
  get size(): number {
    return this.count;
  }

  /** How far back ids are remembered: DEDUP_WINDOW_MS unless the cap has cut it short. */
  windowMs(): number {
    this.expire();
    if (this.cutMinute === null) return DEDUP_WINDOW_MS;
    return Math.min(DEDUP_WINDOW_MS, this.now() - (this.cutMinute + GENERATION_MS));
  }

  /** Whether the id at `words[at..at+4)` (uuidWords) is remembered for the workspace. */
  has(workspaceId: string, words: Int32Array, at = 0): boolean {
    return this.of(workspaceId).has(words, at);
  }

  /**
   * The workspace's remembered ids now, to look up a batch's ids with one expiry and one
   * lookup of the workspace per generation; ids remembered later may be missed.
   */
  of(workspaceId: string): RememberedIds {
    this.expire();
    const sets: UuidSet[] = [];
    for (const generation of this.generations) {
      const set = generation.ids.get(workspaceId);
      if (set !== undefined) sets.push(set);
    }
    return new RememberedIds(sets);
  }

  /** Remembers the id at `words[at..at+4)` (uuidWords) as accepted at `acceptedAt` (default now). */
  add(workspaceId: string, words: Int32Array, at = 0, acceptedAt: number = this.now()): void {
    const ids = this.setFor(workspaceId, acceptedAt);
    if (ids?.add(words, at, hash(words, at))) this.count++;
    this.enforceCap();
  }

  /** Remembers the ids of `records` (indexes into `words`, four words each), accepted at `acceptedAt`. */
  addAll(workspaceId: string, words: Int32Array, records: readonly number[], acceptedAt: number): void {
    const ids = this.setFor(workspaceId, acceptedAt);
    if (ids === null) return;
    for (const i of records) if (ids.add(words, i * 4, hash(words, i * 4))) this.count++;
    this.enforceCap();
  }

  /** The workspace's set of the generation of `acceptedAt`, made when new; null when that is already out of the window. */
  private setFor(workspaceId: string, acceptedAt: number): UuidSet | null {
    const minute = Math.floor(acceptedAt / GENERATION_MS) * GENERATION_MS;
    if (minute <= this.now() - DEDUP_WINDOW_MS - GENERATION_MS) return null;
    // Almost always the newest generation.
    let generation = this.generations[0]?.minute === minute ? this.generations[0] : this.generations.find((g) => g.minute === minute);
    if (!generation) {
      generation = { minute, ids: new Map() };
      this.generations.push(generation);
      this.generations.sort((a, b) => b.minute - a.minute);
    }
    let ids = generation.ids.get(workspaceId);
    if (!ids) {
      // Sized for as many ids as the workspace's newest generation holds: a table that grows
      // by doubling rehashes all its ids at once (130 ms for a few million, seen under load).
      const newest = this.generations.find((g) => g !== generation && g.ids.has(workspaceId));
      ids = new UuidSet(capacityFor(newest?.ids.get(workspaceId)?.size ?? 0));
      generation.ids.set(workspaceId, ids);
    }
    return ids;
  }

  private enforceCap(): void {
    while (this.count > this.maxIds && this.generations.length > 1) {
      this.cutMinute = Math.max(this.cutMinute ?? -Infinity, this.dropOldest());
    }
  }

  private expire(): void {
    // A generation goes when its newest possible id is older than the window.
    const oldestKept = this.now() - DEDUP_WINDOW_MS - GENERATION_MS;
    while (this.generations.length > 0 && this.generations[this.generations.length - 1]!.minute <= oldestKept) this.dropOldest();
    if (this.cutMinute !== null && this.cutMinute <= oldestKept) this.cutMinute = null;
  }

  /** Drops the oldest generation; returns its minute. */
  private dropOldest(): number {
    const dropped = this.generations.pop()!;
    for (const ids of dropped.ids.values()) this.count -= ids.size;
    return dropped.minute;
  }
}
