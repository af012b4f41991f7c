// Local stand-ins for the providers a destination sends to: an HTTP server that records
// every request and answers from a script (webhook sink, Slack, Discord, Telegram), and an
// SMTP server (smtp-server) that keeps every message.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Json } from './http.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly json: Json;
  readonly at: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly body?: string | object;
  readonly headers?: Record<string, string>;
}

/** An answer made from the request it answers (a receiver that echoes what it got). */
export type AnswerOf = (request: RecordedRequest) => ScriptedAnswer;

export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  private readonly script: (ScriptedAnswer | AnswerOf)[] = [];
  private waiters: (() => void)[] = [];
  private toHang = 0;

  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
    private readonly fallback: ScriptedAnswer,
  ) {}

  /** Answers `fallback` (default 200 "ok") unless an answer was scripted with answerNext. */
  static async start(fallback: ScriptedAnswer = { status: 200, body: 'ok' }): Promise<FakeHttpServer> {
    let self: FakeHttpServer | null = null;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => self!.handle(req, body, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FakeHttpServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fallback);
    return self;
  }

  /** The next requests get these answers, in order; then the fallback again. */
  answerNext(...answers: (ScriptedAnswer | AnswerOf)[]): void {
    this.script.push(...answers);
  }

  /** The next `count` requests are recorded and never answered (until close): sends held on the wire. */
  hangNext(count: number): void {
    this.toHang += count;
  }

  private handle(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      // not JSON
    }
    const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
    this.requests.push(recorded);
    if (this.toHang > 0) {
      this.toHang -= 1;
      for (const wake of this.waiters.splice(0)) wake();
      return;
    }
    const next = this.script.shift() ?? this.fallback;
    const answer = typeof next === 'function' ? next(recorded) : next;
    const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': typeof answer.body === 'object' ? 'application/json' : 'text/plain', ...answer.headers });
    res.end(text);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `count` requests have arrived (fails after timeoutMs). */
  async waitForRequests(count: number, timeoutMs = 20_000): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requests;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** A target that accepts connections and reads requests but never answers (until closed). */
export class HangingHttpServer {
  /** Requests received and still waiting for an answer. */
  open = 0;
  received = 0;

  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<HangingHttpServer> {
    let self: HangingHttpServer | null = null;
    const server = http.createServer((req, res) => {
      self!.received++;
      self!.open++;
      req.resume();
      res.on('close', () => self!.open--);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new HangingHttpServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Cuts every waiting request (their senders see a network error) and stops listening. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  /** Headers and body, quoted-printable soft breaks undone. */
  readonly text: string;
  /** The message as it came over the wire. */
  readonly raw: string;
}

export class FakeSmtpServer {
  readonly messages: ReceivedMail[] = [];
  /** SMTP code to refuse the next messages with (e.g. 550), or null to accept. */
  refuseWith: number | null = null;

  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeSmtpServer> {
    let self: FakeSmtpServer | null = null;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (c: Buffer) => (raw += c.toString()));
        stream.on('end', () => {
          if (self!.refuseWith !== null) {
            const err = Object.assign(new Error('mailbox unavailable'), { responseCode: self!.refuseWith });
            return callback(err);
          }
          const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
          self!.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            text: Buffer.from(text, 'latin1').toString('utf8'),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    self = new FakeSmtpServer(server, `smtp://127.0.0.1:${port}`);
    return self;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
