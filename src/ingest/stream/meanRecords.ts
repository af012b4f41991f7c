// The records a journal message holds on average, for the stream backlog's estimate in records
// (JetStream counts messages and bytes, not the records in them).

/** An exponentially weighted mean of records per message; the first messages seen set it, not a guess of 1. */
export class MeanRecords {
  private mean: number | null = null;

  /** `records` over `messages` messages (one batch may take several). */
  add(records: number, messages = 1): void {
    if (messages <= 0) return;
    const perMessage = records / messages;
    this.mean = this.mean === null ? perMessage : this.mean * 0.99 + perMessage * 0.01;
  }

  /** The mean so far; 1 before any message was seen. */
  get value(): number {
    return this.mean ?? 1;
  }
}
