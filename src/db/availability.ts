/**
 * Telling "the database is not there" apart from every other error, so that an outage answers 503
 * `service_unavailable` (retry later; nothing was written) instead of 500 `internal_error`.
 */

/** Seconds a client is told to wait (Retry-After) when the database does not answer: a restart takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// node-postgres pool: how long a request waits for a connection (a new one to connect, or a busy pool to free
// one) before it fails, so that no request hangs on an unreachable or saturated database past ~5 s.
export const CONNECT_TIMEOUT_MS = 5_000;

// Prisma error codes: can't reach server (P1001), timed out reaching it (P1002), server closed the
// connection (P1017), timed out waiting for a pooled connection (P2024), a transaction that could not start
// or was closed under it (P2028).
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
// Driver-adapter error kinds (@prisma/adapter-pg) that mean the connection, not the statement, failed.
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// SQLSTATE: class 08 (connection exception); 57P01-57P03 (administrator or crash shutdown, starting up);
// 53300 too many connections.
const SQLSTATE = /^(08...|57P0[123]|53300)$/;
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// node-postgres throws these as plain Errors (no code) when a connection dies or cannot be had in time.
const MESSAGES = [
  /Connection terminated/i,
  /connection error and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Can't reach database server/i,
  /Client was closed and is not queryable/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

interface Inspectable {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown; code?: unknown };
}

/** Whether `error` or anything it wraps (its cause, a driver adapter's error, an AggregateError's) passes `test`. */
function anyCause(error: unknown, test: (current: Inspectable) => boolean): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop() as Inspectable | undefined;
    if (!current || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    if (test(current)) return true;
    pending.push(current.cause, current.meta?.driverAdapterError);
    const { errors } = current as { errors?: unknown }; // an AggregateError's, from whichever realm made it
    if (Array.isArray(errors)) pending.push(...(errors as unknown[]));
  }
  return false;
}

/** Whether `error` (or anything it wraps) says the database cannot be reached or its connection was lost. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyCause(error, ({ code, kind, message }) => {
    if (typeof code === 'string' && (PRISMA_CODES.has(code) || SQLSTATE.test(code) || SOCKET_CODES.has(code)))
      return true;
    if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
    if (kind === 'postgres' && typeof code === 'string' && SQLSTATE.test(code)) return true;
    return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
  });
}

/** Seconds a client is told to wait (Retry-After) when its transaction lost a race with another one. */
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

// SQLSTATE 40P01 deadlock detected, 40001 serialization failure: node-postgres's error carries it as `code`,
// @prisma/adapter-pg's (kind TransactionWriteConflict, Prisma's P2034) as `originalCode`.
const CONFLICT_SQLSTATE = /^40(P01|001)$/;

const sqlstateOf = ({ code, originalCode }: Inspectable): unknown => originalCode ?? code;

/**
 * Whether `error` (or anything it wraps) says PostgreSQL rolled the transaction back because a concurrent one held
 * what it needed (a deadlock it was chosen to end, or a serialization failure): nothing of it was written, and the
 * same work run again succeeds.
 */
export function isTransactionConflict(error: unknown): boolean {
  return anyCause(error, (current) => {
    const sqlstate = sqlstateOf(current);
    if (typeof sqlstate === 'string' && CONFLICT_SQLSTATE.test(sqlstate)) return true;
    return current.code === 'P2034' || current.kind === 'TransactionWriteConflict';
  });
}

/**
 * Whether `error` (or anything it wraps) is PostgreSQL's serialization failure (40001): under REPEATABLE READ, a row
 * the transaction reads for update changed after its snapshot was taken. Not a deadlock (40P01).
 */
export function isSerializationFailure(error: unknown): boolean {
  return anyCause(error, (current) => sqlstateOf(current) === '40001');
}
