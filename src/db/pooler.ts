import pg from 'pg';

/**
 * Whether `url` reaches PostgreSQL through a connection pooler (PgBouncer, Pgpool-II, Supavisor, ...): such a
 * pooler answers the connection itself and gives the client a backend key of its own, so the process id in it
 * is not the id of the server session that runs the client's statements (`pg_backend_pid()`). A direct
 * connection gets the server's own key. Independent of ports or addresses, so port forwarding does not fool it.
 */
export async function goesThroughPooler(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // processID is node-postgres's copy of the BackendKeyData message's process id.
    const announced = (client as unknown as { processID: number | null }).processID;
    return announced !== rows[0].pid;
  } finally {
    await client.end();
  }
}

/** The refusal of a pooled DATABASE_URL without DATABASE_DIRECT_URL, naming the fix. */
export const POOLED_WITHOUT_DIRECT_URL = [
  'DATABASE_URL goes through a connection pooler (PgBouncer), and DATABASE_DIRECT_URL is not set: the change feed ' +
    '(LISTEN), the job queue and migrations need a session of their own, and through a transaction-mode pooler ' +
    'caches would go stale unnoticed.',
  'Set DATABASE_DIRECT_URL to a direct connection to the same database (docs/deploy.md, "PgBouncer in transaction ' +
    'mode"); for a pooler in session mode, set it to the same URL as DATABASE_URL.',
];
