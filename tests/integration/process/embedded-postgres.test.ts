import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { PostgresStartError, startEmbeddedPostgres } from '../../../src/db/embedded-postgres.js';

// The embedded PostgreSQL of `npm start`: what a new user meets when its port is taken.
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Holds a TCP port on 127.0.0.1 (the given one, or a free one) until closed. */
async function occupy(port = 0): Promise<net.Server & { port: number }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return Object.assign(server, { port: (server.address() as net.AddressInfo).port });
}

const savedPort = (dir: string) =>
  (JSON.parse(readFileSync(path.join(dir, 'postgres.json'), 'utf8')) as { port: number }).port;

/** The cluster answers on the port saved in `dir`, which is not the one another program holds. */
async function expectServedOnSavedPort(cluster: { url: string }, dir: string, takenPort: number): Promise<void> {
  expect(savedPort(dir)).not.toBe(takenPort);
  expect(new URL(cluster.url).port).toBe(String(savedPort(dir)));
  const client = new pg.Client(cluster.url);
  await client.connect();
  expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  await client.end();
}

describe('embedded PostgreSQL', () => {
  test('a data directory whose saved port another program took since starts on a free port, and keeps it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-port-'));
    dirs.push(dir);
    const first = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
    await first.stop();
    const taken = await occupy(savedPort(dir));
    try {
      const second = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
      try {
        await expectServedOnSavedPort(second, dir, taken.port);
      } finally {
        await second.stop();
      }
    } finally {
      taken.close();
    }
  }, 120_000);

  test('a new data directory whose port another program takes while initdb runs starts on a free port', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-race-'));
    dirs.push(dir);
    // The port is chosen (and saved) before initdb's seconds; another program binds it in between, as an outgoing
    // connection's local port or another server can.
    const starting = startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
    const settingsFile = path.join(dir, 'postgres.json');
    while (!existsSync(settingsFile)) await new Promise((resolve) => setTimeout(resolve, 5));
    const taken = await occupy(savedPort(dir));
    try {
      expect(existsSync(path.join(dir, 'pg', 'PG_VERSION'))).toBe(false);
      const started = await starting;
      try {
        await expectServedOnSavedPort(started, dir, taken.port);
      } finally {
        await started.stop();
      }
    } finally {
      taken.close();
    }
  }, 120_000);

  test('a PostgreSQL that cannot start fails with its own reason, not an empty rejection', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-fail-'));
    dirs.push(dir);
    // A port the caller chose is kept even when taken, so PostgreSQL fails to bind it.
    const taken = await occupy();
    try {
      const failure = await startEmbeddedPostgres({
        dir,
        persistent: true,
        whenInUse: 'refuse',
        port: taken.port,
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(PostgresStartError);
      const message = (failure as Error).message;
      expect(message).toContain(
        `The embedded PostgreSQL did not start (data directory ${path.join(dir, 'pg')}, port ${taken.port})`,
      );
      expect(message).toMatch(/could not (bind|create listen socket)|Address already in use/);
    } finally {
      taken.close();
    }
  }, 120_000);
});
