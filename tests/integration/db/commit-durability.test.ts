import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pg from 'pg';
import { commitWith, inTransaction } from '../../../src/db/client-transaction.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded-postgres.js';
import { eventually } from '../../setup/wait.js';

// What commitWith answered is durable: a cluster of its own, crashed (immediate shutdown: no flush on the way out)
// right after the last answer, holds every transaction that was answered. Its WAL writer flushes only every 10 s,
// so a commit answered before its flush (synchronous_commit off without waiting for the flush) would be lost.
const SETTINGS = { wal_writer_delay: '10000', wal_writer_flush_after: '1GB' };
let dir: string;
let cluster: EmbeddedDatabase;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'commit-durability-'));
  cluster = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse', settings: SETTINGS });
}, 120_000);
afterAll(async () => {
  await cluster.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** Stops the cluster as a crash would: SIGQUIT to the postmaster (immediate shutdown, nothing flushed on the way). */
async function crash(): Promise<void> {
  const pid = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGQUIT');
  const gone = await eventually(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    { timeoutMs: 30_000 },
  );
  expect(gone).toBe(true);
}

test('every transaction commitWith answered survives a crash of the database right after the answers', async () => {
  // In pipeline mode, as createDatabase's pool (src/db/round-trip.ts's batches need it).
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4, pipeline: true });
  await pool.query('CREATE TABLE durable_notes (id serial PRIMARY KEY, text text NOT NULL)');
  const write = (text: string) =>
    inTransaction(pool, (client) =>
      commitWith(client, [
        { config: () => ({ text: 'INSERT INTO durable_notes (text) VALUES ($1)', values: [text] }) },
      ]),
    );
  // One after another, then eight at once.
  for (let i = 0; i < 8; i++) await write(`one by one ${i}`);
  await Promise.all(Array.from({ length: 8 }, (_, i) => write(`at once ${i}`)));
  await pool.end().catch(() => {});
  await crash();
  await cluster.stop().catch(() => {});

  cluster = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse', settings: SETTINGS });
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM durable_notes');
    expect(rows[0].n).toBe(16);
  } finally {
    await client.end();
  }
}, 120_000);
