import { afterAll, describe, expect, test } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { freePort } from '../../../src/db/embedded-postgres.js';
import { exited, root, waitForStart } from '../../setup/process.js';

const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

describe('npm run mock', () => {
  test("prints the URL and a first request first, which works as printed; answers each operation's own 400 and CORS as the server does; SIGTERM stops it", async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', '--silent', 'mock'], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, MOCK_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, tsx and Prism are stopped together at the end
    });
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // whatever of its group is left
      } catch {
        // the group is gone
      }
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [, curl] = await waitForStart(child, () => output, /^\s*(curl .*)$/m);
    expect(output).toContain(`Mock of openapi.yaml on http://127.0.0.1:${port}`);
    // The hint comes first: Prism's route list is summed up in one line, not printed before it.
    expect(output.trimStart()).toMatch(/^Mock of openapi\.yaml on/);
    expect(output).not.toMatch(/\bGET\s+http:\/\//);
    const { stdout } = await run('bash', ['-c', curl], { cwd: root });
    const body = JSON.parse(stdout);
    expect(body.data[0].email).toMatch(/@/);
    expect(body.pagination).toHaveProperty('has_more');

    const mock = `http://127.0.0.1:${port}`;
    // A bad draft-order currency: the operation's own 400 example, naming currency.
    const draft = await fetch(`${mock}/v1/draft-orders`, {
      method: 'POST',
      headers: { Authorization: `Bearer sk_test_${'0'.repeat(40)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ currency: 'usd' }),
    });
    expect(draft.status).toBe(400);
    expect(((await draft.json()) as { error: unknown }).error).toMatchObject({
      code: 'invalid_request',
      field: 'currency',
    });

    // CORS as the server does it: secret-key paths answer OPTIONS 405 without CORS headers; browser
    // (publishable-key) paths answer the preflight and carry `*`, never credentials.
    const origin = { Origin: 'https://shop.example.com', 'Access-Control-Request-Method': 'GET' };
    const secretPreflight = await fetch(`${mock}/v1/customers`, { method: 'OPTIONS', headers: origin });
    expect(secretPreflight.status).toBe(405);
    expect(secretPreflight.headers.get('access-control-allow-origin')).toBeNull();
    const secretAnswer = await fetch(`${mock}/v1/customers`, {
      headers: { Origin: origin.Origin, Authorization: `Bearer sk_test_${'0'.repeat(40)}` },
    });
    expect(secretAnswer.headers.get('access-control-allow-origin')).toBeNull();
    const browserPreflight = await fetch(`${mock}/v1/products`, { method: 'OPTIONS', headers: origin });
    expect(browserPreflight.status).toBe(204);
    expect(browserPreflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(browserPreflight.headers.get('access-control-allow-credentials')).toBeNull();
    const browserAnswer = await fetch(`${mock}/v1/products`, {
      headers: { Origin: origin.Origin, 'X-API-Key': `pk_test_${'0'.repeat(40)}` },
    });
    expect(browserAnswer.status).toBe(200);
    expect(browserAnswer.headers.get('access-control-allow-origin')).toBe('*');
    expect(browserAnswer.headers.get('access-control-allow-credentials')).toBeNull();

    process.kill(-child.pid!, 'SIGTERM');
    await exited(child);
  }, 90_000);

  test('--stateful: the real API on a throwaway database with the demo project, deleted when it stops', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', '--silent', 'mock', '--', '--stateful'], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, MOCK_PORT: String(port), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // whatever of its group is left
      } catch {
        // the group is gone
      }
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForStart(child, () => output, /platform token|platform API/, 90_000);
    expect(output).toContain(`listening on http://127.0.0.1:${port}`);
    const dataDir = /keys saved in (\S+)\/demo\.json/.exec(output)![1];
    const key = /secret_test\s+(sk_test_\w+)/.exec(output)![1];
    const mock = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    // State: what is created is there on the next read (the stateless mock answers its example).
    const created = await fetch(`${mock}/v1/customers`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ email: 'stateful@example.com', first_name: 'State', last_name: 'Ful' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    const read = await fetch(`${mock}/v1/customers/${data.id}?fields=email`, { headers: auth });
    expect(await read.json()).toEqual({ data: { id: data.id, email: 'stateful@example.com' } });

    process.kill(-child.pid!, 'SIGTERM');
    await exited(child);
    for (let waited = 0; existsSync(dataDir) && waited < 15_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(dataDir)).toBe(false);
  }, 150_000);
});
