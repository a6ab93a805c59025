/**
 * `npm run mock`: Prism serving openapi.yaml's examples on http://127.0.0.1:4010 (MOCK_PORT to change it),
 * behind a front that applies the server's CORS rules (mocks/mock-front.ts). Prints the URL and a first
 * request first, once the mock answers (Prism's list of routes is summed up in one line; MOCK_VERBOSE=1
 * prints it); SIGINT and SIGTERM stop Prism with it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../src/db/embedded-postgres.js';
import { startMockFront } from './mock-front.js';

const root = path.resolve(import.meta.dirname, '..');
const host = '127.0.0.1';
const port = Number(process.env.MOCK_PORT ?? '4010');
const url = `http://${host}:${port}`;
const verbose = process.env.MOCK_VERBOSE === '1';
const prismPort = await freePort();

const prism = spawn(
  path.join(root, 'node_modules/.bin/prism'),
  ['mock', 'openapi.yaml', '-h', host, '-p', String(prismPort), '--cors', 'false'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

// Prism lists every route at start-up ("info GET http://..."); they are counted, not printed.
const ROUTE_LINE = /\b(GET|POST|PUT|PATCH|DELETE|OPTIONS|HEAD)\s+http:\/\//;
let routes = 0;
let announced = false;
let pending = '';
prism.stdout.on('data', (chunk: Buffer) => {
  pending += chunk.toString();
  const lines = pending.split('\n');
  pending = lines.pop()!;
  for (const line of lines) {
    if (!announced && ROUTE_LINE.test(line) && !verbose) routes += 1;
    else if (announced || verbose) console.log(line.replaceAll(`:${prismPort}`, `:${port}`));
    if (!announced && line.includes('Prism is listening')) {
      announced = true;
      void startMockFront(host, port, `http://${host}:${prismPort}`).then(announce, (error: Error) => {
        console.error(`The mock cannot listen on ${url}: ${error.message}`);
        prism.kill('SIGTERM');
      });
    }
  }
});

function announce(): void {
  console.log(
    [
      `Mock of openapi.yaml on ${url}: every operation answers its documented example`,
      `(any well-formed key is accepted; \`Prefer: example=<name>\` picks a named example, \`Prefer: code=404\` an error).`,
      'Try:',
      `  curl -s '${url}/v1/customers?limit=2' -H 'Authorization: Bearer sk_test_${'0'.repeat(40)}'`,
      '',
      `(${routes} routes; MOCK_VERBOSE=1 lists them. Requests are logged below.)`,
    ].join('\n'),
  );
}
