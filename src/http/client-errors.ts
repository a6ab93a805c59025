import http, { type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '../shared/errors.js';

/** What Node's HTTP parser refuses before a request reaches Koa, as status, reason phrase and message. */
function answerFor(code: string | undefined): [number, string, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        'Request Header Fields Too Large',
        `The request line and headers are larger than ${http.maxHeaderSize / 1024} KiB. Send fewer or shorter query parameters or headers.`,
      ];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'The request did not arrive in time.'];
    default:
      return [400, 'Bad Request', 'The request is not valid HTTP/1.1.'];
  }
}

/**
 * Answers requests Node's HTTP parser refuses (headers or URL over the header limit, malformed HTTP) in the
 * API's error shape, code `invalid_request`, instead of Node's bare status line; keeps the status Node would
 * send (431, 408, 400) and the headers every answer carries (security-headers.ts). The connection closes.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, message] = answerFor(error.code);
    const body = JSON.stringify({ error: { code: 'invalid_request', message } } satisfies ErrorBody);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
