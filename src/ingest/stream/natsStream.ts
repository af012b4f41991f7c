// The journal as a NATS JetStream stream (JOURNAL_URL): one connection per process, the
// stream created or checked at start-up, publishes acknowledged by JetStream before a
// request is answered, and the durable consumer the writers share.
//
// The stream keeps its messages until a writer acknowledges them (work-queue retention), so
// its bytes are the backlog not yet in ClickHouse: past max_bytes JetStream refuses new
// messages (discard new), which is `journal_full`. max_age drops what no writer took for that
// long: it is a last resort against a writer gone for days, set well above any outage.
import { AckPolicy, DiscardPolicy, jetstream, jetstreamManager, JetStreamApiError, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { Consumer, JetStreamClient, JetStreamManager, MsgRequest, NextMsgRequest } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../logger.js';

export interface NatsStreamOptions {
  /** nats://host:port, comma-separated for several servers. */
  readonly url: string;
  readonly stream: string;
  readonly maxBytes: number;
  readonly maxAgeS: number;
  /** How long the writers' consumer waits for an acknowledgement before delivering a message again. */
  readonly ackWaitMs: number;
  readonly logger: Logger;
}

export interface StoredPayload {
  readonly seq: number;
  readonly payload: Buffer;
}

/** Where the stream begins, read from JetStream. */
export interface StreamHead {
  /** The lowest sequence the stream holds; null when it holds none. */
  readonly firstSeq: number | null;
  /** When the stream was created (a stream of the same name made again has other sequences). */
  readonly created: string;
}

/** JetStream refused the publish because the stream is at its max_bytes (or max_msgs). */
export class StreamFullError extends Error {
  constructor() {
    super('the journal stream is at its limits');
    this.name = 'StreamFullError';
  }
}

/** JetStream's error code when a stream with discard-new policy is full. */
const STREAM_FULL_CODES = new Set([10077, 10027, 10047, 10054]);
/** How long a publish waits for JetStream's acknowledgement (also while reconnecting). */
const PUBLISH_TIMEOUT_MS = 5_000;
/** Bytes of a message's max_payload left for its headers (Nats-Expected-Stream: a few dozen). */
const PUBLISH_HEADER_ROOM = 1024;
const nanos = (ms: number) => ms * 1_000_000;

export class NatsStream {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly name: string,
    /** When the stream was created: tells its sequences from those of a stream of the same name before it. */
    readonly createdAt: string,
    /** A writer holding a message longer than this without a sign of life loses it to redelivery. */
    readonly ackWaitMs: number,
    private readonly logger: Logger,
  ) {}

  /** The subject every journaled batch is published to. */
  get subject(): string {
    return `${this.name}.logs`;
  }

  get consumerName(): string {
    return `${this.name}-writer`;
  }

  /** The largest message the server takes (its max_payload, headers included). */
  get maxPayload(): number {
    return this.connection.info?.max_payload ?? 1024 * 1024;
  }

  /** The largest payload one publish carries: max_payload less room for the publish's headers; larger payloads are published in parts. */
  get maxMessagePayload(): number {
    return this.maxPayload - PUBLISH_HEADER_ROOM;
  }

  /** Connects (retrying for ever once connected) and creates the stream, or checks it and brings its limits to the configured ones. */
  static async open(options: NatsStreamOptions): Promise<NatsStream> {
    const { logger } = options;
    const servers = options.url.split(',').map((s) => s.trim());
    const connection = await connect({ servers, name: 'alertmon', maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5_000 });
    void (async () => {
      for await (const s of connection.status()) {
        if (s.type === 'disconnect') logger.warn('journal stream: disconnected from NATS; publishes are answered 503 until it is back', { server: s.server });
        else if (s.type === 'reconnect') logger.info('journal stream: reconnected to NATS', { server: s.server });
      }
    })().catch(() => {});
    try {
      const jsm = await jetstreamManager(connection);
      const createdAt = await ensureStream(jsm, options);
      return new NatsStream(connection, jetstream(connection), jsm, options.stream, createdAt, options.ackWaitMs, logger);
    } catch (err) {
      await connection.close();
      throw err;
    }
  }

  /** Publishes one payload; resolves with its stream sequence once JetStream has it (stored with the stream's replicas). */
  async publish(payload: Uint8Array): Promise<number> {
    try {
      const ack = await this.js.publish(this.subject, payload, { timeout: PUBLISH_TIMEOUT_MS, expect: { streamName: this.name } });
      return ack.seq;
    } catch (err) {
      if (err instanceof JetStreamApiError && STREAM_FULL_CODES.has(err.apiError().err_code)) throw new StreamFullError();
      throw err;
    }
  }

  /** The writers' durable pull consumer, created when missing; its ack wait brought to the configured one. */
  async consumer(): Promise<Consumer> {
    const info = await this.jsm.consumers.info(this.name, this.consumerName).catch(() => null);
    if (info === null) {
      await this.jsm.consumers.add(this.name, {
        durable_name: this.consumerName,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(this.ackWaitMs),
        max_ack_pending: -1,
      });
    } else if (info.config.ack_wait !== nanos(this.ackWaitMs)) {
      await this.jsm.consumers.update(this.name, this.consumerName, { ack_wait: nanos(this.ackWaitMs) });
    }
    return this.js.consumers.get(this.name, this.consumerName);
  }

  /** The stream sequence below which (inclusive) the writers' consumer holds every message acknowledged. */
  async ackFloor(): Promise<number> {
    return (await this.jsm.consumers.info(this.name, this.consumerName)).ack_floor.stream_seq;
  }

  async head(): Promise<StreamHead> {
    const info = await this.jsm.streams.info(this.name);
    return { firstSeq: info.state.messages === 0 ? null : info.state.first_seq, created: info.created };
  }

  /** The messages the stream holds from sequence `from` to `to` (inclusive), at most `max`, in order. */
  async messagesBetween(from: number, to: number, max: number): Promise<StoredPayload[]> {
    const found: StoredPayload[] = [];
    for (let seq = from; seq <= to && found.length < max; ) {
      // next_by_subj: the first message at or after `seq`, skipping removed ones (the server
      // takes it since 2.9; the client's type for this request lists only seq and last_by_subj).
      const next: NextMsgRequest = { seq, next_by_subj: this.subject };
      const stored = await this.jsm.streams.getMessage(this.name, next as unknown as MsgRequest);
      if (stored === null || stored.seq > to) break;
      found.push({ seq: stored.seq, payload: Buffer.from(stored.data.buffer, stored.data.byteOffset, stored.data.byteLength) });
      seq = stored.seq + 1;
    }
    return found;
  }

  async remove(seq: number): Promise<void> {
    await this.jsm.streams.deleteMessage(this.name, seq, false);
  }

  /** Messages not yet acknowledged by a writer, their bytes, and when the oldest was published (ms; null when none). */
  async backlog(): Promise<{ messages: number; bytes: number; oldestAt: number | null }> {
    const info = await this.jsm.streams.info(this.name);
    const { messages, bytes, first_ts: firstTs } = info.state;
    return { messages, bytes, oldestAt: messages === 0 || !firstTs ? null : Date.parse(firstTs) };
  }

  /** Resolves when the server answers a round trip. */
  async ping(): Promise<void> {
    await this.connection.rtt();
  }

  async close(): Promise<void> {
    // A drain waits for subscriptions to finish; bounded, then the connection is closed.
    await Promise.race([this.connection.drain().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    if (!this.connection.isClosed()) await this.connection.close();
    this.logger.debug('journal stream: connection closed');
  }
}

async function ensureStream(jsm: JetStreamManager, options: NatsStreamOptions): Promise<string> {
  const wanted = { max_bytes: options.maxBytes, max_age: nanos(options.maxAgeS * 1000) };
  let info = await jsm.streams.info(options.stream).catch((err: unknown) => {
    if (err instanceof JetStreamApiError && err.apiError().err_code === 10059) return null; // stream not found
    throw err;
  });
  if (info === null) {
    info = await jsm.streams.add({
      name: options.stream,
      subjects: [`${options.stream}.logs`],
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.New,
      storage: StorageType.File,
      ...wanted,
    });
    options.logger.info('journal stream created', { stream: options.stream, max_bytes: options.maxBytes, max_age_s: options.maxAgeS });
    return info.created;
  }
  const { config } = info;
  if (config.retention !== RetentionPolicy.Workqueue || config.discard !== DiscardPolicy.New || !config.subjects?.includes(`${options.stream}.logs`)) {
    throw new Error(
      `the JetStream stream ${options.stream} exists with another shape (it needs work-queue retention, discard new, subject ${options.stream}.logs): choose another JOURNAL_STREAM or remove it`,
    );
  }
  if (config.max_bytes !== wanted.max_bytes || config.max_age !== wanted.max_age) {
    await jsm.streams.update(options.stream, { ...config, ...wanted });
    options.logger.info('journal stream limits updated', { stream: options.stream, max_bytes: options.maxBytes, max_age_s: options.maxAgeS });
  }
  return info.created;
}
