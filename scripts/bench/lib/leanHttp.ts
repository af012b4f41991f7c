// The benchmark's HTTP/1.1 client: keep-alive connections that each write a request's head and
// body as they are and read back the status, headers and a Content-Length body. The service
// and its load share this machine's two cores, and Node's http client spent about 0.3 ms of
// CPU a request (a tenth of the machine during the closed loop), taken from the service it
// measures; this one does a fraction of that work. The service sees the same bytes: a
// request line, Host, the headers given, Content-Length, the body.
import net from 'node:net';

export interface HttpAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

class Connection {
  readonly socket: net.Socket;
  private received: Buffer = Buffer.alloc(0);
  private waiting: { resolve(answer: HttpAnswer): void; reject(err: Error): void; timer: NodeJS.Timeout } | null = null;
  closed = false;

  constructor(host: string, port: number, onClose: (connection: Connection) => void) {
    this.socket = net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => {
      this.fail(new Error('the connection closed before the answer'));
      onClose(this);
    });
  }

  send(head: Buffer, body: Buffer | null, timeoutMs: number): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.socket.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.socket.cork();
      this.socket.write(head);
      if (body !== null && body.length > 0) this.socket.write(body);
      this.socket.uncork();
    });
  }

  private read(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    const headEnd = this.received.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const lines = this.received.toString('latin1', 0, headEnd).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    if (headers.has('transfer-encoding')) {
      this.socket.destroy(new Error(`a chunked answer (${status}), which this client does not read`));
      return;
    }
    const bodyStart = headEnd + HEAD_END.length;
    const bodyEnd = bodyStart + Number(headers.get('content-length') ?? 0);
    if (this.received.length < bodyEnd) return;
    const body = this.received.subarray(bodyStart, bodyEnd);
    this.received = this.received.subarray(bodyEnd);
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting === null) return;
    clearTimeout(waiting.timer);
    if (headers.get('connection') === 'close') this.socket.end();
    waiting.resolve({ status, headers, body });
  }

  private fail(err: Error): void {
    this.closed = true;
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting === null) return;
    clearTimeout(waiting.timer);
    waiting.reject(err);
  }
}

/** Up to `maxConnections` keep-alive connections to one origin; requests beyond wait for one. */
export class LeanHttpClient {
  private readonly host: string;
  private readonly port: number;
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly queue: (() => void)[] = [];
  private destroyed = false;

  constructor(
    origin: string,
    private readonly maxConnections: number,
    private readonly timeoutMs = 60_000,
  ) {
    const url = new URL(origin);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  /** The head of a request, to send with a body of `bodyBytes` (prepare once, send many times). */
  head(method: string, path: string, headers: Readonly<Record<string, string>>, bodyBytes: number): Buffer {
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${this.host}:${this.port}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (bodyBytes > 0 || method !== 'GET') lines.push(`Content-Length: ${bodyBytes}`);
    return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  }

  async send(head: Buffer, body: Buffer | null = null): Promise<HttpAnswer> {
    const connection = await this.acquire();
    try {
      return await connection.send(head, body, this.timeoutMs);
    } finally {
      this.release(connection);
    }
  }

  /** Closes every connection; requests under way fail. */
  destroy(): void {
    this.destroyed = true;
    for (const connection of this.open) connection.socket.destroy();
    this.idle.length = 0;
  }

  private async acquire(): Promise<Connection> {
    for (;;) {
      if (this.destroyed) throw new Error('the client was closed');
      const idle = this.idle.pop();
      if (idle !== undefined && !idle.closed) return idle;
      if (idle === undefined && this.open.size < this.maxConnections) {
        const connection = new Connection(this.host, this.port, (closed) => this.forget(closed));
        this.open.add(connection);
        return connection;
      }
      if (idle === undefined) await new Promise<void>((resolve) => this.queue.push(resolve));
    }
  }

  private release(connection: Connection): void {
    if (!connection.closed && !this.destroyed) this.idle.push(connection);
    this.queue.shift()?.();
  }

  private forget(connection: Connection): void {
    this.open.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.queue.shift()?.();
  }
}
