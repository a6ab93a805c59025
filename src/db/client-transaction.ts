import type pg from 'pg';
import { connectionOf } from './client.js';
import { BEGIN, COMMIT_THEN_FLUSH, inOneRoundTrip, type RowsOf, type Step } from './round-trip.js';

// Connections whose transaction a batch already committed (commitWith): inTransaction sends no COMMIT of its own.
const committed = new WeakSet<pg.PoolClient>();

/**
 * Runs `work` in one transaction on one connection of `pool` (BEGIN, its statements, COMMIT; ROLLBACK when it
 * throws, and the error rethrown). The connection returns to the pool either way; one whose rollback failed is
 * closed instead, so no pooled connection is left inside a transaction. With `opening`, BEGIN and those statements
 * go in one round trip and work gets their rows; when work ends with commitWith, no second COMMIT is sent.
 */
export async function inTransaction<T, const S extends readonly Step<unknown>[] = []>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, opened: RowsOf<S>) => Promise<T>,
  opening?: S,
): Promise<T> {
  const client = await connectionOf(pool);
  let broken: Error | undefined;
  try {
    let opened = [] as unknown as RowsOf<S>;
    if (opening)
      [, ...opened] = (await inOneRoundTrip(client, [BEGIN, ...opening])) as unknown as [never, ...RowsOf<S>];
    else await client.query('BEGIN');
    const result = await work(client, opened);
    if (!committed.delete(client)) await client.query('COMMIT');
    return result;
  } catch (error) {
    committed.delete(client);
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
      broken = rollbackFailed;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

// The transaction's commit does not wait for its WAL to reach the disk: its locks are released once its commit
// record is written, so the next transaction waiting on them does not also wait on this one's flush.
const RELEASE_BEFORE_FLUSH: Step<never> = { config: () => ({ text: 'SET LOCAL synchronous_commit = off' }) };

/**
 * Runs `steps` as the last statements of inTransaction's transaction on `client` and COMMIT in the same round trip,
 * so the locks they take (a counter row) are held for their execution and the writing of the commit record only:
 * not for a round trip to this process in between, nor for the WAL flush, which follows the release and is shared
 * with the commits of other connections. Resolves once the commit is on disk as a synchronous commit is (the flush
 * of COMMIT_THEN_FLUSH), so nothing is answered before it is durable; other sessions may read its rows during that
 * flush (milliseconds), and WAL's order keeps any later commit that depended on them behind it. When a step fails,
 * the transaction is aborted: the steps after it run nothing, the COMMIT answers ROLLBACK, and the promise rejects
 * with the step's error (inTransaction's ROLLBACK then finds no transaction, a warning); a failed COMMIT rolls back
 * and rejects.
 * Resolves to the steps' rows. Nothing may run on `client` after it.
 */
export async function commitWith<const S extends readonly Step<unknown>[]>(
  client: pg.PoolClient,
  steps: S,
): Promise<RowsOf<S>> {
  const batch = [RELEASE_BEFORE_FLUSH, ...steps, COMMIT_THEN_FLUSH] as const;
  const rows = (await inOneRoundTrip(client, batch)) as unknown as unknown[][];
  committed.add(client);
  // The steps' rows: after RELEASE_BEFORE_FLUSH's, one per step.
  return rows.slice(1, 1 + steps.length) as RowsOf<S>;
}
