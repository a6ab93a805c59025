import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { startEmbeddedPostgres } from '../../../src/db/embedded-postgres.js';
import { createTestDatabase } from '../../setup/database.js';
import { exited, launchMain, runScript, type Cleanups } from '../../setup/process.js';
import { eventually } from '../../setup/wait.js';

// What `npm start` with DATABASE_URL does when the database is not (yet) there or refuses it.
const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('start against DATABASE_URL', () => {
  test('no database answering: waits DATABASE_WAIT_SECONDS, then says where it looked in one line and exits 1, without the password', async () => {
    const port = await closedPort();
    const started = Date.now();
    const { code, output } = await runScript(
      'src/main.ts',
      [],
      { DATABASE_URL: `postgres://shop:s3cret-pw@127.0.0.1:${port}/shop`, DATABASE_WAIT_SECONDS: '2', PORT: '0' },
      cleanups,
    );
    expect(code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(output).toContain(`Waiting up to 2 s for PostgreSQL at shop@127.0.0.1:${port}/shop`);
    expect(output).toContain(
      `Not starting: PostgreSQL at shop@127.0.0.1:${port}/shop did not accept a connection within 2 s (connect ECONNREFUSED 127.0.0.1:${port}). Check DATABASE_URL, or start PostgreSQL.`,
    );
    expect(output).not.toContain('s3cret-pw');
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);

  test('a wrong password or a missing database fails at once with the reason', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const url = new URL(database.url);
    const wrongPassword = new URL(database.url);
    wrongPassword.password = 'not-the-password';
    const refused = await runScript('src/main.ts', [], { DATABASE_URL: wrongPassword.href, PORT: '0' }, cleanups);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      `Not starting: PostgreSQL at ${url.username}@${url.hostname}:${url.port}${url.pathname} refused the credentials in DATABASE_URL (password authentication failed`,
    );
    expect(refused.output).not.toContain('not-the-password');
    const missing = new URL(database.url);
    missing.pathname = '/no_such_database';
    const absent = await runScript('src/main.ts', [], { DATABASE_URL: missing.href, PORT: '0' }, cleanups);
    expect(absent.code).toBe(1);
    expect(absent.output).toContain(
      'has no such database (database "no_such_database" does not exist). Create it, or fix the database name in DATABASE_URL.',
    );
  }, 60_000);

  test('a server started before its database comes up once the database does', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'late-db-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // Initialise a cluster, then stop it: its URL is known, nothing answers there yet.
    const first = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
    await first.stop();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'late-db-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const server = launchMain(
      { DATABASE_URL: first.url, DATA_DIR: dataDir, DATABASE_WAIT_SECONDS: '30', LOG_LEVEL: 'warn' },
      cleanups,
    );
    // Once it says it waits (it tried and found nothing there), the database starts.
    expect(
      await eventually(() => server.output().includes('Waiting up to 30 s for PostgreSQL at postgres@127.0.0.1:'), {
        timeoutMs: 30_000,
        intervalMs: 100,
      }),
    ).toBe(true);
    const database = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
    cleanups.push(database.stop);
    const { child, output } = server;
    const baseUrl = await server.listening;
    expect(output()).not.toContain('Not starting');
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  }, 90_000);
});
