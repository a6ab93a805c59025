/**
 * A carrier-rate callback server for local work and the shipping benchmark: HTTPS on 127.0.0.1 with a
 * certificate of your own (CARRIER_CERT / CARRIER_KEY, PEM files) or a throwaway self-signed one whose
 * certificate it writes to CARRIER_CA_OUT (default ./.data/carrier-ca.pem) for NODE_EXTRA_CA_CERTS.
 *
 *   CARRIER_MODE=ok     answers CARRIER_RATES rates (default 3) in the requested currency (default)
 *   CARRIER_MODE=sleep  answers the same after CARRIER_DELAY_MS (default 6000): a carrier timing out
 *   CARRIER_MODE=error  answers 500
 *   PORT                default 0 (a free port); prints "listening on https://127.0.0.1:<port>"
 *
 * The API calls it only with ALLOW_PRIVATE_NETWORK_TARGETS=true and the certificate trusted, e.g.
 *   NODE_EXTRA_CA_CERTS=.data/carrier-ca.pem ALLOW_PRIVATE_NETWORK_TARGETS=true npm start
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const mode = process.env.CARRIER_MODE ?? 'ok';
const rateCount = Number(process.env.CARRIER_RATES ?? 3);
const delayMs = Number(process.env.CARRIER_DELAY_MS ?? 6000);
if (!['ok', 'sleep', 'error'].includes(mode) || !Number.isInteger(rateCount) || rateCount < 0 || !(delayMs >= 0)) {
  console.error(
    'CARRIER_MODE must be ok, sleep or error; CARRIER_RATES a whole number; CARRIER_DELAY_MS a number of milliseconds.',
  );
  process.exit(2);
}

function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'carrier-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe', timeout: 10_000 },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls =
  process.env.CARRIER_CERT && process.env.CARRIER_KEY
    ? { cert: readFileSync(process.env.CARRIER_CERT, 'utf8'), key: readFileSync(process.env.CARRIER_KEY, 'utf8') }
    : selfSigned();
if (!process.env.CARRIER_CERT) {
  const out = path.resolve(process.env.CARRIER_CA_OUT ?? '.data/carrier-ca.pem');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, tls.cert);
  console.log(`certificate written to ${out} (use it as NODE_EXTRA_CA_CERTS)`);
}

/** Rates in the requested currency, cheapest last, so the API's sorting shows. */
const ratesFor = (currency: string) =>
  Array.from({ length: rateCount }, (_, i) => ({
    name: `Carrier ${i + 1}`,
    description: `Mock service ${i + 1}`,
    price: 500 + 250 * (rateCount - i),
    currency,
    min_delivery_days: 1 + i,
    max_delivery_days: 3 + i,
  }));

const server = https.createServer(tls, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let currency = 'USD';
    try {
      currency = JSON.parse(Buffer.concat(chunks).toString()).currency ?? currency;
    } catch {
      // not JSON: answer in USD
    }
    const answer = () => {
      if (res.destroyed) return;
      if (mode === 'error') res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"mock failure"}');
      else
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rates: ratesFor(currency) }));
    };
    if (mode === 'sleep') setTimeout(answer, delayMs).unref();
    else answer();
  });
});
server.keepAliveTimeout = 10_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`carrier mock (${mode}) listening on https://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
