/**
 * Polls `check` until it holds (true) or `timeoutMs` passes (false): for effects that arrive on their own
 * (notifications, reconnects) instead of a fixed sleep.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 2_000, intervalMs = 10 } = {},
): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** What runs SQL for lockWaits: a node-postgres client or a Prisma client (the app's `deps.db`). */
type SqlRunner =
  | { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> }
  | { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> };

/**
 * How many other sessions of the current database wait for a lock, counting only those whose statement matches one
 * of `patterns` (ILIKE) when any are given: for a test that holds a row and waits until a request queues behind it.
 */
export async function lockWaits(on: SqlRunner, ...patterns: string[]): Promise<number> {
  const matching = patterns.length ? ` AND (${patterns.map((_, i) => `query ILIKE $${i + 1}`).join(' OR ')})` : '';
  const sql = `SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()${matching}`;
  const rows =
    'query' in on ? (await on.query(sql, patterns)).rows : await on.$queryRawUnsafe<unknown[]>(sql, ...patterns);
  return (rows as Array<{ n: number }>)[0].n;
}
