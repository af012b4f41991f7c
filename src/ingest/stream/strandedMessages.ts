// Messages a NATS server's kill or crash can strand in the stream. The server keeps the
// consumer's acknowledgements and the stream's removals in separate files, each written
// lazily; killed in between, it comes back with the consumer's ack floor past a message the
// stream still holds. The consumer never delivers that message again (it counts it as
// acknowledged), so the work-queue stream never empties: seen with nats-server 2.9 after a
// kill -9 under load, the stream holding its first message, the ack floor 49 past it.
//
// A writer acknowledges a message only after its insert, so a stranded message's records are
// in ClickHouse already; they are checked anyway, the way a redelivered message is (by
// log_id against `logs`, the rollups rebuilt over their stretch), and then the message is
// removed. A message is taken for stranded only when it lies at or below an ack floor read a
// sweep earlier: an acknowledgement the server is still applying is never mistaken for one.
import type { Logger } from '../../logger.js';
import type { NatsStream } from './natsStream.js';

/** How often the writer looks for stranded messages. */
export const STRANDED_SWEEP_MS = 5_000;
/** Stranded messages stored again in one go (one lookup in `logs`, one rebuild of the rollups). */
const MAX_PER_SWEEP = 1_000;

export class StrandedMessages {
  /** The consumer's ack floor at the previous sweep, for the stream created at `created`. */
  private settled = { floor: 0, created: '' };

  constructor(
    private readonly stream: NatsStream,
    /** Makes the payloads' records hold exactly once in ClickHouse; false when it gave up (stopping). */
    private readonly storeAgain: (payloads: Buffer[]) => Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  /** Stores again and removes the messages at or below the previous sweep's ack floor; returns how many. */
  async sweep(): Promise<number> {
    const floor = await this.stream.ackFloor();
    const head = await this.stream.head();
    // An ack floor that went back belongs to a consumer made again: nothing is settled yet.
    const below = head.created === this.settled.created && floor >= this.settled.floor ? this.settled.floor : 0;
    this.settled = { floor, created: head.created };
    if (head.firstSeq === null || head.firstSeq > below) return 0;
    const stranded = await this.stream.messagesBetween(head.firstSeq, below, MAX_PER_SWEEP);
    if (stranded.length === 0 || !(await this.storeAgain(stranded.map((m) => m.payload)))) return 0;
    for (const m of stranded) await this.stream.remove(m.seq);
    this.logger.warn(
      'journal stream: messages the writers had acknowledged were still in the stream (left by a NATS server restart); checked against logs and removed',
      {
        messages: stranded.length,
        stream_seqs: stranded.map((m) => m.seq).slice(0, 20),
        ack_floor: below,
      },
    );
    return stranded.length;
  }
}
