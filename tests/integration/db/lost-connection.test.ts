import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pg from 'pg';
import { connectionOf, createDatabase, poolOf, type Database } from '../../../src/db/client.js';
import { createTestDatabase } from '../../setup/database.js';

// A connection checked out of the pool between two statements of a transaction, whose server session ends (a
// replica SIGKILLed, a failover, an administrator): node-postgres emits `error` on it, and the pool listens only to
// idle connections. Unheard, that error ends the process (in jest: the whole file fails, as read-replicas did once).

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase(database.url, 2);
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

test('a session ended while its connection is checked out fails that connection only; the next statements run', async () => {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    // Checked out as writeOnConnection checks one out (src/db/client-transaction.ts), idle between two statements.
    const client = await connectionOf(poolOf(db)!);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    const [{ one }] = await db.$queryRaw<Array<{ one: number }>>`SELECT 1 AS one`;
    expect(one).toBe(1);
  } finally {
    await admin.end();
  }
});
