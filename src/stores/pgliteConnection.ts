// A pg client's connection to embedded PGlite inside this process: the Postgres wire protocol
// passed as bytes between pg and PGlite, with no socket in between. Through a socket (as
// pglite-socket serves it), each statement waited for two turns of the event loop, the
// server's read and then the client's, and under ingest load a turn takes tens of
// milliseconds: a control-plane read waited 50-100 ms for a query that runs in one. Here a
// statement is answered within the turn that sent it.
//
// pg takes any duplex stream as its connection (its `stream` option); this one implements
// what pg calls on a socket. Messages are framed as pglite-socket frames them (the startup
// message has no type byte) and run one at a time, each in PGlite's exclusive section, in
// the order pg sent them.
import { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';

/** The startup message's protocol version field: 3.0. */
const PROTOCOL_3_0 = 196608;
/** Terminate's type byte. */
const TERMINATE = 0x58;

export class PgliteConnection extends Duplex {
  private unread: Buffer = Buffer.alloc(0);
  private started = false;
  /** The messages sent so far, run in order. */
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly db: PGlite) {
    super();
  }

  // What pg calls on a socket.
  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {
    // Replies are pushed as PGlite produces them.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.unread = this.unread.length === 0 ? chunk : Buffer.concat([this.unread, chunk]);
    let messages: Uint8Array[];
    try {
      messages = this.completeMessages();
    } catch (err) {
      done(err as Error);
      return;
    }
    this.running = this.running.then(async () => {
      for (const message of messages) {
        await this.db.runExclusive(() => this.db.execProtocolRawStream(message, { onRawData: (reply) => this.push(Buffer.from(reply)) }));
      }
    });
    // Accepted at once, as a socket would; a failure ends the connection.
    this.running.catch((err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))));
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.running
      .then(() => this.rollBackOpenTransaction())
      .then(
        () => {
          this.push(null);
          done();
        },
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    // A connection that dies inside a transaction must not leave it to the next one.
    this.running
      .catch(() => {})
      .then(() => this.rollBackOpenTransaction())
      .then(
        () => done(err),
        () => done(err),
      );
  }

  private async rollBackOpenTransaction(): Promise<void> {
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
  }

  /** The whole messages at the start of what was written, taken off it. */
  private completeMessages(): Uint8Array[] {
    const messages: Uint8Array[] = [];
    for (;;) {
      const buffer = this.unread;
      let length: number;
      if (!this.started) {
        // Length, then the protocol version; no type byte.
        if (buffer.length < 8) break;
        if (buffer.readInt32BE(4) !== PROTOCOL_3_0) throw new Error('the embedded Postgres takes protocol 3.0 without SSL only');
        length = buffer.readInt32BE(0);
      } else {
        if (buffer.length < 5) break;
        length = 1 + buffer.readInt32BE(1);
      }
      if (buffer.length < length) break;
      // Terminate ends the connection (pg then ends the stream); PGlite's session goes on.
      if (!this.started || buffer[0] !== TERMINATE) messages.push(new Uint8Array(buffer.subarray(0, length)));
      this.unread = buffer.subarray(length);
      this.started = true;
    }
    return messages;
  }
}
