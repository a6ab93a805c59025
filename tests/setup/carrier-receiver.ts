import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './self-signed.js';

/** What a carrier endpoint of the receiver does. */
export type CarrierBehavior =
  | { kind: 'rates'; rates: unknown[] }
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  | { kind: 'redirect'; to: string }
  | { kind: 'sleep'; ms: number; then: CarrierBehavior }
  /** Never answers (until the receiver closes). */
  | { kind: 'hang' };

export interface SeenRequest {
  endpoint: string;
  method?: string;
  path?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface CarrierReceiver {
  /** The self-signed certificate (PEM) the receiver serves, valid for 127.0.0.1, ::1 and carrier.test. */
  cert: string;
  port: number;
  /** https://127.0.0.1:<port>/carrier/<endpoint> */
  url: (endpoint: string) => string;
  /** Sets what an endpoint does from now on (unknown endpoints answer 404). */
  behave: (endpoint: string, behavior: CarrierBehavior) => void;
  /** Every request received, oldest first. */
  seen: SeenRequest[];
  /** Requests received by one endpoint. */
  seenBy: (endpoint: string) => SeenRequest[];
  close: () => Promise<void>;
}

/** `count` carrier rates in USD named `<prefix> 1..count` whose prices fall as the number rises (answer order ≠ price order). */
export function carrierRates(count: number, prefix = 'Carrier', currency = 'USD') {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix} ${i + 1}`,
    description: null,
    price: 3000 - 100 * i,
    currency,
    min_delivery_days: 1,
    max_delivery_days: 3,
  }));
}

/** A carrier-rate server on 127.0.0.1 over HTTPS with a throwaway self-signed certificate; records what it receives. */
export async function startCarrierReceiver(): Promise<CarrierReceiver> {
  const { key, cert } = selfSignedCertificate(['carrier.test']);
  const behaviors = new Map<string, CarrierBehavior>();
  const seen: SeenRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const answer = (res: ServerResponse, behavior: CarrierBehavior): void => {
    switch (behavior.kind) {
      case 'rates':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rates: behavior.rates }));
        return;
      case 'raw':
        res
          .writeHead(behavior.status, { 'content-type': behavior.contentType ?? 'application/json' })
          .end(behavior.body);
        return;
      case 'redirect':
        res.writeHead(302, { location: behavior.to }).end();
        return;
      case 'sleep': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer(res, behavior.then);
        }, behavior.ms);
        timers.add(timer);
        return;
      }
      case 'hang':
        return;
    }
  };

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const endpoint = (req.url ?? '').split('?')[0].replace(/^\/carrier\//, '');
      seen.push({
        endpoint,
        method: req.method,
        path: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const behavior = behaviors.get(endpoint);
      if (behavior) answer(res, behavior);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    cert,
    port,
    url: (endpoint) => `https://127.0.0.1:${port}/carrier/${endpoint}`,
    behave: (endpoint, behavior) => behaviors.set(endpoint, behavior),
    seen,
    seenBy: (endpoint) => seen.filter((request) => request.endpoint === endpoint),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
