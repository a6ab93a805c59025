import type pg from 'pg';

/**
 * Statements of a transaction sent to PostgreSQL together and answered together: one round trip for several
 * statements whose values do not depend on each other's rows. They go through node-postgres's pipeline mode (a
 * client made with `pipeline: true`, as createDatabase's pool makes its connections): each statement is written to
 * the connection as soon as it is queued, with its own Sync, without waiting for the answer of the one before.
 *
 * PostgreSQL runs them one after the other, each with its own snapshot as if sent one by one (under READ COMMITTED a
 * statement sees what committed before it began, so a read after a locking statement sees every write committed
 * before the lock was granted). A batch runs inside a transaction block (it starts with BEGIN, or its connection is
 * in one): the first statement that fails aborts the transaction, so the ones after it run nothing (each fails with
 * 25P02, and a COMMIT among them answers ROLLBACK); the batch waits for every answer, then rejects with that first
 * failure. No statement of a batch leaves the transaction block before the last one (a COMMIT is its last statement,
 * COMMIT_THEN_FLUSH below), so a transaction-mode pooler keeps the connection's server session for the whole batch.
 */

/** One statement of a batch: its text, values and name (prepared once per connection when named). */
export interface Step<Row> {
  config: (client: pg.PoolClient) => pg.QueryConfig;
  /** Told of the statement's own error, when it failed (a prepared statement renamed after a migration). */
  failed?: (error: unknown) => void;
  /** Only for typing the rows. */
  readonly row?: Row;
}

/** A transaction's BEGIN as a step. */
export const BEGIN: Step<never> = { config: () => ({ text: 'BEGIN' }) };

// The flush after a commit made without waiting for its own (src/db/client-transaction.ts's commitWith): a
// transaction of its own that writes one WAL record (a logical decoding message, which nothing here decodes) and so
// commits as the session commits, synchronously unless the operator chose otherwise: its flush takes the WAL to disk
// up to its own commit record, past the one before it. (A transaction that only takes an xid writes no WAL of its own
// and commits without a flush.)
const FLUSH = "SELECT pg_logical_emit_message(true, 'commerce-api.flush', '')";

/**
 * COMMIT, then FLUSH in a transaction of its own, as one step: one simple-protocol message of two statements
 * (PostgreSQL runs the statements after a COMMIT in such a message in an implicit transaction of their own, committed
 * at its end), so the batch has one Sync after its COMMIT, none between it and the flush. Its rows are none.
 */
export const COMMIT_THEN_FLUSH: Step<never> = { config: () => ({ text: `COMMIT; ${FLUSH}` }) };

/**
 * Generic plans for the rest of the transaction, before a prepared statement PostgreSQL would otherwise plan afresh
 * on every execution: one whose generic plan its estimates keep dearer than each custom plan (ten rows assumed for
 * an unnest of a parameter where a custom plan sees two), though both are the same index scans.
 */
export const GENERIC_PLANS: Step<never> = {
  config: () => ({ text: 'SET LOCAL plan_cache_mode = force_generic_plan' }),
};

// A connection's transaction status (its last ReadyForQuery): in a transaction block, or in one that failed.
const IN_BLOCK = new Set<string | null>(['T', 'E']);

export type RowsOf<S extends readonly Step<unknown>[]> = { [K in keyof S]: S[K] extends Step<infer R> ? R[] : never };

/**
 * Runs `steps` on `client` (a pipelining connection, in a transaction block or opening one with BEGIN) in one round
 * trip and resolves to each one's rows, in order. A step of several statements (COMMIT_THEN_FLUSH) answers none.
 */
export async function inOneRoundTrip<const S extends readonly Step<unknown>[]>(
  client: pg.PoolClient,
  steps: S,
): Promise<RowsOf<S>> {
  if (!client.pipeline) throw new Error('A batch needs a connection in pipeline mode (pg.Pool({ pipeline: true })).');
  if (steps[0] !== BEGIN && !IN_BLOCK.has(client.getTransactionStatus()))
    throw new Error('A batch runs in a transaction block: it starts with BEGIN, or its connection is in one.');
  // Every statement is written now, before any answer comes (pipeline mode); node-postgres settles them in order.
  const answers = await Promise.allSettled(
    steps.map((step) => client.query(step.config(client)) as Promise<pg.QueryResult | pg.QueryResult[]>),
  );
  const failures = answers.flatMap((answer, i) =>
    answer.status === 'rejected' ? [{ i, error: answer.reason as unknown }] : [],
  );
  for (const { i, error } of failures) steps[i].failed?.(error);
  if (failures.length > 0) throw failures[0].error;
  const results = answers.map((answer) => (answer as PromiseFulfilledResult<pg.QueryResult | pg.QueryResult[]>).value);
  // COMMIT in a transaction that had already failed answers ROLLBACK, without an error.
  steps.forEach((step, i) => {
    const result = results[i];
    if (step === COMMIT_THEN_FLUSH && (!Array.isArray(result) || result[0].command !== 'COMMIT'))
      throw new Error('The transaction was rolled back, not committed.');
  });
  return results.map((result): unknown[] => (Array.isArray(result) ? [] : result.rows)) as RowsOf<S>;
}
