import type { Database, Tx } from './client.js';

/**
 * `tx` seen as a Database: every query runs in that transaction, and `$transaction(fn)` runs `fn` nested in
 * it behind a savepoint (released when `fn` resolves, rolled back to when it throws), so services written
 * against a Database (writeTx, lockRows, jobs sent inside their transaction) work unchanged inside a
 * transaction that an outer layer owns and commits. Nested calls must not run concurrently with each other.
 */
export function asDatabase(tx: Tx): Database {
  let savepoints = 0;
  const nested = async (work: unknown): Promise<unknown> => {
    const name = `nested_${++savepoints}`;
    await tx.$executeRawUnsafe(`SAVEPOINT ${name}`);
    try {
      // The batch form ($transaction([query, ...])): queries made on this client, run in order.
      const result = Array.isArray(work)
        ? await (work as unknown[]).reduce<Promise<unknown[]>>(
            async (done, query) => [...(await done), await query],
            Promise.resolve([]),
          )
        : await (work as (client: Database) => Promise<unknown>)(database);
      await tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      // Fails too when the connection is gone; the outer transaction then fails with it.
      await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
      throw error;
    }
  };
  const database: Database = new Proxy(tx, {
    get(target, property) {
      if (property === '$transaction') return nested;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Database;
  outerTransactions.add(database);
  return database;
}

const outerTransactions = new WeakSet<object>();

/**
 * Whether `db` is a transaction an outer layer owns (asDatabase; the idempotency middleware's request transaction):
 * work that must not hold a transaction open (a payment provider's call) is then left to a job after its commit.
 */
export const isOuterTransaction = (db: object): boolean => outerTransactions.has(db);
