import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { isAlive } from '../../../src/db/embedded-postgres.js';
import { exited, root, waitForStart, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `npm start` in a pseudo-terminal (util-linux `script`): what it printed, and how to press keys in it. */
function startInTerminal(dataDir: string) {
  // `exec`: npm is the terminal's program, as when typed at a shell prompt (a non-interactive sh waiting for it would
  // take the Ctrl-C as its own and exit 130 after npm's orderly exit).
  const child = spawn('script', ['-qfec', 'exec npm start', '/dev/null'], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, TERM: 'dumb', DATA_DIR: dataDir, PORT: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const listening = waitForStart(child, () => output, /listening on (http:\/\/[\d.:]+)/, 90_000).then(
    (match) => match[1],
  );
  // The terminal turns ETX into SIGINT for its foreground process group: what a Ctrl-C does.
  const ctrlC = () => child.stdin.write('\x03');
  return { child, output: () => output, listening, ctrlC };
}

/**
 * A POST whose body arrives in two parts: the first now, the rest when `finish` is called. Resolves once the server
 * has read its headers (it answers `Expect: 100-continue`), so the request is in flight; `status` is the final status.
 */
async function slowCreate(baseUrl: string, key: string, email: string) {
  const { port } = new URL(baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ email, first_name: 'Ctrl', last_name: 'C' });
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.on('error', (error) => (answer += `(${error.message})`));
  const status = new Promise<string>((resolve) =>
    socket.once('close', () => resolve(/HTTP\/1\.1 ([2-5]\d\d)/.exec(answer)?.[1] ?? answer)),
  );
  socket.write(
    `POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nExpect: 100-continue\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n` +
      body.slice(0, 5),
  );
  await new Promise<void>((resolve) => {
    const check = () => (answer.includes('100 Continue') ? resolve() : setTimeout(check, 10));
    check();
  });
  return { finish: () => socket.write(body.slice(5)), status };
}

describe('npm start in a terminal', () => {
  test('Ctrl-C: open requests finish with answers from the database, then PostgreSQL stops; no warnings', async () => {
    const dataDir = await initialisedDataDir('ctrl-c-', cleanups);
    const started = startInTerminal(dataDir);
    const baseUrl = await started.listening;
    const key = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')).keys.secret_test.token as string;
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);

    // Requests in flight when the key is pressed: three creates waiting for the rest of their bodies.
    const slow = await Promise.all([1, 2, 3].map((n) => slowCreate(baseUrl, key, `ctrl-c-${n}@example.com`)));
    started.ctrlC();
    const deadline = Date.now() + 30_000;
    while (!started.output().includes('"message":"stopping"') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started.output()).toContain('"message":"stopping"');
    // PostgreSQL did not get the terminal's SIGINT: it still runs while the requests are open.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(isAlive(postmaster)).toBe(true);
    expect(started.child.exitCode).toBeNull();
    for (const request of slow) request.finish();
    const statuses = await Promise.all(slow.map((request) => request.status));
    expect(statuses).toEqual(['201', '201', '201']);

    const code = await exited(started.child);
    expect(code).toBe(0);
    expect(started.output()).toContain('stopped (the embedded PostgreSQL too)');
    expect(started.output()).not.toContain('stopping now');
    // An orderly stop logs nothing at warn level or above (e.g. pg-boss losing its database).
    expect(started.output()).not.toMatch(/"level":"(warn|error|fatal)"/);
    expect(isAlive(postmaster)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  }, 150_000);
});
