// Requests that Node's HTTP parser refuses never reach Koa: a request line and headers over
// Node's 16 KB (a 100 KB query string), bytes after a body that are not a request (a
// Content-Length shorter than the body sent), a request too slow to arrive. Node answers
// them with a bare status line; this answers in the API's JSON error shape instead, the way
// Node itself does it: only while no response of that connection has begun, then the
// connection is closed (what follows the bad bytes cannot be trusted). CONNECT never reaches
// Koa either (Node hands its connection over as a tunnel) and is answered here too.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import { errorBody } from './middleware/errorHandler.js';

interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

function refusalOf(errorCode: string | undefined): Refusal {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        message: 'The request line and headers are larger than 16 KB (a query string that long is refused).',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', message: 'The chunk extensions of the body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time.' };
    default:
      return {
        status: 400,
        code: 'malformed_request',
        message: 'The request is not valid HTTP/1.1 (for example, a body longer than its Content-Length).',
      };
  }
}

/** The socket's response in progress, as Node's HTTP server keeps it. */
const responseInProgress = (socket: Duplex) => (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;

/** Handler for http.Server's 'clientError' event. */
export function clientErrorHandler(logger: Logger): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    // A connection reset by the client has no one to answer.
    if (err.code === 'ECONNRESET' || !socket.writable || responseInProgress(socket)?.headersSent === true) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(err.code);
    logger.info('request refused by the HTTP parser', { status: refusal.status, code: refusal.code, parser_error: err.code ?? err.message });
    answerAndClose(socket, refusal);
  };
}

/**
 * Handler for http.Server's 'connect' event: CONNECT (a proxy's method) gets 405 like any other
 * method no route serves; without a handler Node closes the connection with no answer. Its
 * target is a host, not a resource of this service, so Allow lists no method.
 */
export function connectRefusal(logger: Logger): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    // The connection is ours now, Node's handlers gone: a reset must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    logger.info('request refused', { method: req.method, status: 405, code: 'method_not_allowed' });
    answerAndClose(socket, { status: 405, code: 'method_not_allowed', message: 'CONNECT is not served: this service is not a proxy.' }, { Allow: '' });
  };
}

/** Writes a whole response in the API's error shape on a connection no response has begun on, then closes it. */
function answerAndClose(socket: Duplex, { status, code, message }: Refusal, headers: Readonly<Record<string, string>> = {}): void {
  const body = JSON.stringify(errorBody(code, message));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      extra.join('') +
      'Connection: close\r\n\r\n' +
      body,
  );
}
