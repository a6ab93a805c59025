/**
 * `npm run mock:webhooks`: a local HTTPS webhook receiver for trying deliveries by hand. It listens on
 * https://127.0.0.1:$RECEIVER_PORT (default 4020; 0 picks a free port) with a self-signed certificate kept in
 * $RECEIVER_DIR (default .data/webhook-receiver) as cert.pem (start the API with NODE_EXTRA_CA_CERTS pointing at
 * it), prints every delivery and checks both signatures (X-Service-Signature, and the Standard Webhooks one with
 * the standardwebhooks library) with WEBHOOK_SECRET or, read again at every delivery, the secret that the printed
 * subscription step saves in $RECEIVER_DIR/secret: no restart. ANSWER (default 200) is the status it answers,
 * e.g. 500 to watch retries or 410 to see the subscription paused. Its printed steps address the API at
 * http://127.0.0.1:${PORT:-3000}, the API's own PORT in the shell they are pasted into.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { selfSignedCertificate } from '../tests/setup/self-signed.js';

const port = Number(process.env.RECEIVER_PORT ?? 4020);
const answer = Number(process.env.ANSWER ?? 200);
const dir = path.resolve(process.env.RECEIVER_DIR ?? path.join(import.meta.dirname, '../.data/webhook-receiver'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const secretFile = path.join(dir, 'secret');
if (!existsSync(certFile)) {
  mkdirSync(dir, { recursive: true });
  const made = selfSignedCertificate(['localhost']);
  writeFileSync(keyFile, made.key, { mode: 0o600 });
  writeFileSync(certFile, made.cert);
}

/** WEBHOOK_SECRET, else the secret saved by the printed subscription step (read at each delivery), else none. */
function currentSecret(): string | undefined {
  if (process.env.WEBHOOK_SECRET) return process.env.WEBHOOK_SECRET;
  try {
    return readFileSync(secretFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function serviceSignatureOk(secret: string, body: Buffer, header: string | undefined): boolean {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
  const given = Buffer.from(header ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function standardSignatureOk(secret: string, body: Buffer, headers: Record<string, string>): string {
  try {
    new Webhook(secret).verify(body, headers);
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
      const event = JSON.parse(body.toString('utf8')) as { type?: string; data?: { id?: string }; test?: boolean };
      summary = `${event.type} ${event.data?.id ?? ''}${event.test ? ' (test event)' : ''}`;
    } catch {
      summary = `(not JSON: ${body.length} bytes)`;
    }
    const lines = [
      `${new Date().toISOString()} POST ${req.url} ${summary} webhook-id ${header('webhook-id')} -> ${answer}`,
    ];
    const secret = currentSecret();
    if (!secret) lines.push(`  signatures not checked: no secret in ${shown(secretFile)}`);
    else {
      lines.push(
        `  X-Service-Signature: ${serviceSignatureOk(secret, body, header('x-service-signature')) ? 'valid' : 'INVALID'}`,
      );
      const standard = {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      };
      lines.push(`  Standard Webhooks:   ${standardSignatureOk(secret, body, standard)}`);
    }
    console.log(lines.join('\n'));
    res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'not ok');
  });
});
/** A path as the printed steps show it: relative to the repository folder they run in, or absolute outside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
}

/**
 * The shell lines that subscribe the demo project to this receiver (saving the signing secret where the receiver
 * reads it, and the subscription's id in ID) and send it a test event, ready to paste from the repository folder.
 */
export function tryItSteps(receiverPort: number): string[] {
  const subscription = JSON.stringify({ url: `https://127.0.0.1:${receiverPort}/hook`, events: ['customer.created'] });
  // Prints the id and saves the secret; an error answer is printed as it came (stderr), and ID stays empty.
  const keep =
    `const a = JSON.parse(require('fs').readFileSync(0, 'utf8')); if (!a.data) { console.error(JSON.stringify(a)); process.exit(1); } ` +
    `require('fs').writeFileSync('${shown(secretFile)}', a.data.secret); console.log(a.data.id)`;
  return [
    'API=http://127.0.0.1:${PORT:-3000}',
    `KEY=$(node -p "require('./.data/demo.json').keys.secret_test.token")`,
    `ID=$(curl -s $API/v1/webhooks -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '${subscription}' | node -e "${keep}")`,
    `curl -s -X POST $API/v1/webhooks/$ID/test -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"event_type":"customer.created"}'`,
  ];
}

server.listen(port, '127.0.0.1', () => {
  const listening = (server.address() as AddressInfo).port;
  const [api, key, subscribe, send] = tryItSteps(listening);
  console.log(
    [
      `Webhook receiver on https://127.0.0.1:${listening}/ (answers ${answer}; checks signatures with ${process.env.WEBHOOK_SECRET ? 'WEBHOOK_SECRET' : `the secret in ${shown(secretFile)}`})`,
      '',
      '1. Start the API trusting this receiver (it refuses loopback targets without ALLOW_PRIVATE_NETWORK_TARGETS):',
      `   ALLOW_PRIVATE_NETWORK_TARGETS=true NODE_EXTRA_CA_CERTS=${shown(certFile)} npm start`,
      '2. In another terminal, from the repository folder: subscribe the demo project to this receiver (the',
      `   signing secret is saved in ${shown(secretFile)}, where this receiver reads it):`,
      `   ${api}`,
      `   ${key}`,
      `   ${subscribe}`,
      '3. Send it a test event of any type, then watch it arrive here with its signatures checked:',
      `   ${send}`,
      '   Real events follow as the store changes, e.g. after creating a customer (POST $API/v1/customers).',
    ].join('\n'),
  );
});
