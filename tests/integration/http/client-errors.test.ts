import net from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { useStore } from '../../setup/store.js';

// Requests Node's HTTP parser refuses never reach Koa; they still get the API's error shape.
const store = useStore();

/** Sends `request` as raw bytes and resolves to the status, headers and body of the answer (the server closes). */
function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(store.app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

describe('requests refused by the HTTP parser', () => {
  test('a URL over the 16 KiB header limit answers 431 invalid_request in the error shape, with the security headers', async () => {
    const answer = await raw(
      `GET /v1/customers?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${store.keys.secret_test.token}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      connection: 'close',
    });
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: 'invalid_request',
        message:
          'The request line and headers are larger than 16 KiB. Send fewer or shorter query parameters or headers.',
      },
    });
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  });

  test('malformed HTTP answers 400 invalid_request in the error shape', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' },
    });
  });

  test('the server keeps serving afterwards', async () => {
    await raw(`GET /${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect((await store.api.GET('/v1/customers', { params: { query: { limit: 1 } } })).response.status).toBe(200);
  });
});
