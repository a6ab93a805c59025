import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { selfSignedCertificate } from './self-signed.js';

/** One request the receiver got, with the body exactly as sent. */
export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** What the receiver answers a request on a path: a status and body, or `hang` (never answers). */
export type Answer = { status: number; body?: string } | 'hang';

/**
 * A local HTTPS webhook receiver on 127.0.0.1 with a throwaway self-signed certificate (also written to
 * `caFile`, for NODE_EXTRA_CA_CERTS of a child process). Answers 200 unless told otherwise per path.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  readonly cert: string;
  readonly caFile: string;
  private readonly dir: string;
  private readonly server: https.Server;
  private readonly answers = new Map<string, Answer>();
  private readonly hanging = new Set<ServerResponse>();
  private waiters: Array<() => void> = [];
  port = 0;

  constructor() {
    const { key, cert } = selfSignedCertificate(['receiver.test']);
    this.cert = cert;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-receiver-'));
    this.caFile = path.join(this.dir, 'ca.pem');
    writeFileSync(this.caFile, cert);
    this.server = https.createServer({ key, cert, keepAliveTimeout: 5_000 }, (req, res) => this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The URL of a path on this receiver. */
  url(pathname = '/hook'): string {
    return `https://127.0.0.1:${this.port}${pathname}`;
  }

  /** Sets what requests to `pathname` get from now on. */
  answer(pathname: string, answer: Answer): void {
    this.answers.set(pathname, answer);
  }

  /** The requests received on `pathname`. */
  on(pathname: string): Received[] {
    return this.received.filter((request) => request.path === pathname);
  }

  /** Resolves once `count` requests arrived on `pathname`; rejects after `timeoutMs`. */
  async waitFor(pathname: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(pathname).length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${pathname}: ${this.on(pathname).length} of ${count} requests within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return this.on(pathname);
  }

  /** Answers every hanging request (so the server can close). */
  releaseHanging(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.releaseHanging();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const pathname = (req.url ?? '/').split('?')[0];
      this.received.push({
        path: pathname,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      for (const wake of this.waiters.splice(0)) wake();
      const answer = this.answers.get(pathname) ?? { status: 200, body: '{"ok":true}' };
      if (answer === 'hang') {
        this.hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  }
}
