/** Reads of an in-process index's rows: one read-only snapshot, rows in batches through a cursor. */
import type pg from 'pg';

// The in-process order equals the statements' only where text sorts by code point (byte order in UTF-8).
export const CODE_POINT_COLLATIONS = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8']);

/** Whether the database's collation sorts text by code point (so an index may order as the statements do). */
export async function sortsByCodePoint(client: pg.PoolClient): Promise<boolean> {
  const [[collation]] = await rows(client, 'SELECT datcollate FROM pg_database WHERE datname = current_database()', []);
  return CODE_POINT_COLLATIONS.has(String(collation));
}

/** Runs `read` in one read-only snapshot on a connection of its own. */
export async function inSnapshot<T>(pool: pg.Pool, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await read(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export const rows = async (client: pg.PoolClient, text: string, values: unknown[]) =>
  (await client.query<unknown[]>({ text, values, rowMode: 'array' })).rows;

// Rows fetched at a time while an index is built: the build's own memory stays a few MB above the index's.
const FETCH_ROWS = 1_000;

/**
 * Calls `take` with the rows of `query` in batches of `fetchRows` (FETCH_ROWS by default: fewer where rows are
 * large), in its order (inside the snapshot's transaction), awaiting each; a `take` answering false stops the read.
 */
export async function eachBatch(
  client: pg.PoolClient,
  query: string,
  values: unknown[],
  take: (rows: unknown[][]) => void | boolean | Promise<void | boolean>,
  fetchRows = FETCH_ROWS,
) {
  await client.query({ text: `DECLARE index_rows NO SCROLL CURSOR FOR ${query}`, values });
  for (;;) {
    const batch = await rows(client, `FETCH FORWARD ${Math.max(1, Math.floor(fetchRows))} FROM index_rows`, []);
    if (batch.length === 0 || (await take(batch)) === false) break;
  }
  await client.query('CLOSE index_rows');
}
