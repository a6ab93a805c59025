import pg from 'pg';

/**
 * Runs `work` while holding PostgreSQL's session advisory lock `key` on a connection of its own to `url` (a
 * direct URL: a session lock through a transaction-mode pooler could be taken and released on different
 * server sessions), so processes starting together run it one after another. The lock is released, and
 * the connection closed, whether `work` resolves or throws; its result or error is passed on.
 */
export async function withSessionLock<T>(url: string, key: number, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {}); // a connection lost while working ends the session, and the lock with it
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
    await client.end().catch(() => {});
  }
}
