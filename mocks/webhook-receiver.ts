/**
 * `npm run mock:webhooks`: a local HTTPS webhook receiver for trying deliveries by hand. It listens on
 * https://127.0.0.1:$PORT (default 4020) with a self-signed certificate kept in
 * .data/webhook-receiver/cert.pem (start the API with NODE_EXTRA_CA_CERTS pointing at it), prints every
 * delivery and, given WEBHOOK_SECRET, checks both signatures: X-Service-Signature, and the Standard
 * Webhooks one with the standardwebhooks library. ANSWER (default 200) is the status it answers,
 * e.g. 500 to watch retries or 410 to see the subscription paused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { selfSignedCertificate } from '../tests/setup/self-signed.js';

const port = Number(process.env.PORT ?? 4020); // 0 picks a free port
const answer = Number(process.env.ANSWER ?? 200);
const secret = process.env.WEBHOOK_SECRET;
const dir = path.resolve(import.meta.dirname, '../.data/webhook-receiver');
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
if (!existsSync(certFile)) {
  mkdirSync(dir, { recursive: true });
  const made = selfSignedCertificate(['localhost']);
  writeFileSync(keyFile, made.key, { mode: 0o600 });
  writeFileSync(certFile, made.cert);
}

function serviceSignatureOk(body: Buffer, header: string | undefined): boolean {
  const expected = createHmac('sha256', Buffer.from(secret!, 'utf8')).update(body).digest();
  const given = Buffer.from(header ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function standardSignatureOk(body: Buffer, headers: Record<string, string>): string {
  try {
    new Webhook(secret!).verify(body, headers);
    return 'valid';
  } catch (error) {
    return `INVALID (${(error as Error).message})`;
  }
}

const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const header = (name: string) => String(req.headers[name] ?? '');
    let summary: string;
    try {
      const event = JSON.parse(body.toString('utf8')) as { type?: string; data?: { id?: string } };
      summary = `${event.type} ${event.data?.id ?? ''}`;
    } catch {
      summary = `(not JSON: ${body.length} bytes)`;
    }
    const lines = [
      `${new Date().toISOString()} POST ${req.url} ${summary} webhook-id ${header('webhook-id')} -> ${answer}`,
    ];
    if (secret) {
      lines.push(
        `  X-Service-Signature: ${serviceSignatureOk(body, header('x-service-signature')) ? 'valid' : 'INVALID'}`,
      );
      const standard = {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      };
      lines.push(`  Standard Webhooks:   ${standardSignatureOk(body, standard)}`);
    }
    console.log(lines.join('\n'));
    res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'not ok');
  });
});
/** The request that subscribes the demo project to this receiver, ready to paste into a shell. */
export function subscriptionRequest(receiverPort: number, apiUrl = 'http://127.0.0.1:3000'): string {
  const body = JSON.stringify({ url: `https://127.0.0.1:${receiverPort}/hook`, events: ['customer.created'] });
  return [
    `KEY=$(node -p "require('./.data/demo.json').keys.secret_test.token")`,
    `curl -s ${apiUrl}/v1/webhooks -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '${body}'`,
  ].join('\n');
}

server.listen(port, '127.0.0.1', () => {
  const listening = (server.address() as AddressInfo).port;
  console.log(
    [
      `Webhook receiver on https://127.0.0.1:${listening}/ (answers ${answer}; ${secret ? 'checking signatures' : 'set WEBHOOK_SECRET to check signatures'})`,
      '',
      '1. Start the API trusting it (loopback targets are refused without ALLOW_PRIVATE_NETWORK_TARGETS=true):',
      `   ALLOW_PRIVATE_NETWORK_TARGETS=true NODE_EXTRA_CA_CERTS=${path.relative(process.cwd(), certFile)} npm start`,
      '2. Subscribe the demo project to this receiver (from the repository folder, in another terminal):',
      '<!-- subscription-request -->',
      subscriptionRequest(listening, process.env.API_URL),
      '<!-- /subscription-request -->',
      `3. Restart this receiver with WEBHOOK_SECRET=<the "secret" of that answer> to check signatures, then create a`,
      `   customer (POST /v1/customers) and watch the delivery arrive here.`,
    ].join('\n'),
  );
});
