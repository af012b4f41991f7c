// The stream sequences a writer stored lately, to know a message delivered again after its
// first copy was stored (streamWriter.ts).

/** A set of the last `capacity` sequences added. */
export class RecentSequences {
  private readonly seqs = new Set<number>();
  private readonly order: number[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(seq: number): void {
    if (this.seqs.has(seq)) return;
    if (this.order.length === this.capacity) this.seqs.delete(this.order[this.next]!);
    this.order[this.next] = seq;
    this.next = (this.next + 1) % this.capacity;
    this.seqs.add(seq);
  }

  has(seq: number): boolean {
    return this.seqs.has(seq);
  }
}
