/**
 * `npm run mock`: Prism serving openapi.yaml's examples on http://127.0.0.1:4010 (MOCK_PORT to change it).
 * Prints the URL and a first request once Prism listens; SIGINT and SIGTERM stop Prism with it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const host = '127.0.0.1';
const port = process.env.MOCK_PORT ?? '4010';
const url = `http://${host}:${port}`;

const prism = spawn(path.join(root, 'node_modules/.bin/prism'), ['mock', 'openapi.yaml', '-h', host, '-p', port], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let announced = false;
prism.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (announced || !chunk.toString().includes('Prism is listening')) return;
  announced = true;
  console.log(
    [
      '',
      `Mock of openapi.yaml on ${url}: every operation answers its documented example`,
      `(any well-formed key is accepted; \`Prefer: example=<name>\` picks a named example, \`Prefer: code=404\` an error).`,
      'Try:',
      `  curl -s '${url}/v1/customers?limit=2' -H 'Authorization: Bearer sk_test_${'0'.repeat(40)}'`,
      '',
    ].join('\n'),
  );
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
