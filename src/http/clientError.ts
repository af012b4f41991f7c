// Requests that Node's HTTP parser refuses never reach Koa: a request line and headers over
// Node's 16 KB (a 100 KB query string), bytes after a body that are not a request (a
// Content-Length shorter than the body sent), a request too slow to arrive. Node answers
// them with a bare status line; this answers in the API's JSON error shape instead, the way
// Node itself does it: only while no response of that connection has begun, then the
// connection is closed (what follows the bad bytes cannot be trusted).
import { STATUS_CODES } from 'node:http';
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
    const { status, code, message } = refusalOf(err.code);
    const body = JSON.stringify(errorBody(code, message));
    logger.info('request refused by the HTTP parser', { status, code, parser_error: err.code ?? err.message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
