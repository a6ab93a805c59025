import { expect } from '@jest/globals';
import type pg from 'pg';

/**
 * PostgreSQL's durability settings as a deployment keeps them (its defaults). The test run's shared cluster turns
 * them off for speed (tests/setup/test-postgres.mjs); the suites that claim no acknowledged write is lost (crash
 * safety, database outage) run on a cluster of their own with these, and check them.
 */
export const DURABLE: Record<string, string> = { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on' };

/** Fails unless the server `sql` is connected to runs with every DURABLE setting. */
export async function expectDurable(sql: pg.Client): Promise<void> {
  const { rows } = await sql.query('SELECT name, setting FROM pg_settings WHERE name = ANY($1) ORDER BY name', [
    Object.keys(DURABLE),
  ]);
  expect(Object.fromEntries(rows.map((row: { name: string; setting: string }) => [row.name, row.setting]))).toEqual(
    DURABLE,
  );
}
