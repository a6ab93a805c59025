import type pg from 'pg';
import { connectionOf } from './client.js';

/**
 * Runs `work` in one transaction on one connection of `pool` (BEGIN, its statements, COMMIT; ROLLBACK when it
 * throws, and the error rethrown). The connection returns to the pool either way; one whose rollback failed is
 * closed instead, so no pooled connection is left inside a transaction.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connectionOf(pool);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
      broken = rollbackFailed;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
