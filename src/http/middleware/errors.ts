import { types } from 'node:util';
import type { Middleware } from 'koa';
import {
  CONFLICT_RETRY_AFTER_SECONDS,
  DATABASE_RETRY_AFTER_SECONDS,
  isDatabaseUnavailable,
  isTransactionConflict,
} from '../../db/availability.js';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { AppContext, RequestState } from '../state.js';

interface PrismaLikeError {
  code?: string;
  meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } };
}

/** The AppError a thrown value stands for: Prisma's unique and missing-record errors are mapped, the rest is internal. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const prisma = error as PrismaLikeError;
  if (prisma?.code === 'P2002') {
    const fields =
      prisma.meta?.driverAdapterError?.cause?.constraint?.fields ??
      (Array.isArray(prisma.meta?.target) ? (prisma.meta?.target as string[]) : []);
    const field = fields.map((name) => name.replace(/"/g, '')).find((name) => name !== 'project_id');
    return new AppError(
      'conflict',
      field ? `A resource with this ${field} already exists.` : 'A resource with these values already exists.',
      { field },
    );
  }
  if (prisma?.code === '23505') return new AppError('conflict', 'A resource with these values already exists.'); // from a prepared statement
  if (prisma?.code === 'P2025') return new AppError('not_found', 'Not found.');
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  if (isTransactionConflict(error)) return transactionConflict();
  return undefined;
}

/**
 * 503 service_unavailable with Retry-After: PostgreSQL ended the request's transaction because a concurrent one held
 * the same rows (a deadlock, a serialization failure). Nothing was written and the same request succeeds when sent
 * again; not 409, which an Idempotency-Key would keep and replay (only 5xx answers are not kept).
 */
export function transactionConflict(): AppError {
  return new AppError(
    'service_unavailable',
    `Another request was changing the same records at the same moment; nothing was written. Retry in ${CONFLICT_RETRY_AFTER_SECONDS} second.`,
    { headers: { 'Retry-After': String(CONFLICT_RETRY_AFTER_SECONDS) } },
  );
}

/** 503 service_unavailable with Retry-After: the database does not answer (nothing was written). */
export function databaseUnavailable(): AppError {
  return new AppError(
    'service_unavailable',
    `The service cannot reach its database right now. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    {
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    },
  );
}

// While the database is down every request fails the same way: one line (without a stack, it is the
// database's state, not a bug here) for the first, then one summary per interval, not one line per request.
const OUTAGE_LOG_INTERVAL_MS = 10_000;
const outageLog = {
  lastLogged: 0,
  suppressed: 0,
  record(log: Logger, ctx: AppContext, error: unknown): void {
    const now = Date.now();
    if (now - this.lastLogged < OUTAGE_LOG_INTERVAL_MS) {
      this.suppressed += 1;
      return;
    }
    const cause = types.isNativeError(error) ? error.message.trim().split('\n').at(-1) : String(error);
    log.warn('database unavailable; answering 503', {
      requestId: ctx.state.requestId,
      operation: ctx.state.operation?.operationId,
      error: cause,
      since_last: this.suppressed,
    });
    this.lastLogged = now;
    this.suppressed = 0;
  },
};

/**
 * Where an error was thrown: the first frame of the server's own code (`modules/x/x.service.ts:42`, paths
 * from src/ or dist/), or else the first frame at all. One location, not the stack: log lines carry no
 * stack traces (SECURITY.md), and the request id leads to the rest.
 */
function originOf(error: Error): string | undefined {
  const frames = (error.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => /\(?((?:file:\/\/)?\/[^():]+):(\d+):\d+\)?\s*$/.exec(line))
    .filter((m) => m !== null);
  const own = frames.find((m) => /\/(src|dist)\//.test(m[1]) && !m[1].includes('node_modules'));
  const frame = own ?? frames[0];
  return frame && `${frame[1].replace(/^.*\/(src|dist)\//, '').replace(/^.*node_modules\//, '')}:${frame[2]}`;
}

/**
 * Writes the `Error` body of openapi.yaml for `error`; unexpected errors are logged (message and origin, no stack)
 * and answered without details.
 */
export function renderError(ctx: AppContext, error: unknown, log: Logger): void {
  const appError = toAppError(error);
  if (appError && (appError.status < 500 || appError.code === 'service_unavailable')) {
    if (isDatabaseUnavailable(error)) outageLog.record(log, ctx, error);
    else if (isTransactionConflict(error)) {
      // Rare, and a sign of two writers taking the same rows in different orders: where, for whoever fixes it.
      log.warn('transaction conflict; answering 503', {
        requestId: ctx.state.requestId,
        operation: ctx.state.operation?.operationId,
        error: types.isNativeError(error) ? error.message.trim().split('\n').at(-1) : String(error),
        origin: types.isNativeError(error) ? originOf(error) : undefined,
      });
    }
    ctx.status = appError.status;
    ctx.body = appError.toBody();
    for (const [name, value] of Object.entries(appError.options.headers ?? {})) ctx.set(name, value);
    return;
  }
  log.error(appError ? 'internal error' : 'unhandled error', {
    requestId: ctx.state.requestId,
    operation: ctx.state.operation?.operationId,
    // isNativeError, not instanceof: a library's error may come from another realm (a test runner's, a VM's).
    error: types.isNativeError(error) ? `${error.name}: ${error.message}` : String(error),
    origin: types.isNativeError(error) ? originOf(error) : undefined,
  });
  ctx.status = 500;
  ctx.body = new AppError(
    'internal_error',
    `An unexpected error occurred. Quote request id ${ctx.state.requestId} when contacting support.`,
  ).toBody();
}

/** Catches whatever the rest of the pipeline throws and answers it in the error shape. */
export function errorHandler(log: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      renderError(ctx, error, log);
    }
  };
}
