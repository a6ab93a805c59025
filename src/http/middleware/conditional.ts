import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import { CONNECT_TIMEOUT_MS, isSerializationFailure } from '../../db/availability.js';
import type { Database } from '../../db/client.js';
import { asDatabase } from '../../db/nested-transaction.js';
import { Prisma } from '../../generated/prisma/client.js';
import { entityTagOf } from '../../shared/entity-tag.js';
import { AppError } from '../../shared/errors.js';
import { cachesReadingFrom } from '../../shared/table-version-cache.js';
import type { AppContext, RequestState } from '../state.js';

/** Reads the resource's current representation (`data`) with the request's path, on the given database. */
export type CurrentReader = (ctx: AppContext, db: Database) => Promise<unknown>;

// The check and the write share one transaction; like an idempotent create's, it spans the handler.
const CONDITIONAL_TRANSACTION = {
  isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
  maxWait: CONNECT_TIMEOUT_MS,
  timeout: 30_000,
};

/** `*`, or the opaque tags of the strong entity tags listed (weak ones are left out: they never match). */
export function parseIfMatch(header: string): '*' | string[] {
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  const entity = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;
  while (entity.lastIndex < header.length) {
    const match = entity.exec(header);
    if (!match) {
      throw new AppError('invalid_request', 'If-Match must be * or a comma-separated list of quoted entity tags.', {
        field: 'If-Match',
      });
    }
    if (!match[1]) tags.push(match[2]);
  }
  return tags;
}

const preconditionFailed = () =>
  new AppError(
    'precondition_failed',
    'The resource changed since the ETag in If-Match was read. Read it again and retry with its current ETag.',
    { field: 'If-Match' },
  );

/**
 * Sets the `ETag` of a successful answer whose body is `{data}`: the tag of that representation, unless an
 * earlier step set it (an answer shaped by `fields` or `expand` carries the tag of the whole representation).
 * Placed before the idempotency step, so a replayed create carries the tag too.
 */
export function entityTag(): Middleware<RequestState> {
  return async (ctx, next) => {
    await next();
    if (ctx.status >= 300 || ctx.response.get('ETag')) return;
    const data = (ctx.body as { data?: unknown } | undefined)?.data;
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) ctx.set('ETag', entityTagOf(data));
  };
}

/**
 * A GET whose answer `fields` or `expand` shapes: tags it with the whole representation, read first, so the
 * tag is never newer than what the answer shows (a write in between only makes a later If-Match fail).
 */
export function shapedEntityTag(read: CurrentReader, deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    if (Object.keys(ctx.state.query ?? {}).length > 0) ctx.set('ETag', entityTagOf(await read(ctx, deps.db)));
    await next();
  };
}

/**
 * If-Match on PATCH and DELETE: the write is made only when one of the tags is the resource's current one (or
 * `*`), else 412 precondition_failed with nothing written. The check and the handler run in one REPEATABLE READ
 * transaction whose snapshot is taken before the check: a row the handler writes that another transaction
 * changed after the check makes PostgreSQL refuse the write (serialization failure), answered 412 as well, so
 * no write slips between the check and this one. A path naming no resource is left to the handler (404), and
 * without the header the request runs as it is.
 */
export function ifMatch(read: CurrentReader, deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const header = ctx.get('If-Match');
    if (!header) return next() as Promise<void>;
    const wanted = parseIfMatch(header);
    const service = ctx.state.service;
    try {
      await deps.db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`; // the snapshot every later statement of the transaction reads
        const db = asDatabase(tx);
        ctx.state.db = db;
        // The snapshot may predate writes the caches already heard of (as a replica lags): what the handler
        // computes from it is served to this request only, never kept for others.
        const caches = service?.caches && cachesReadingFrom(service.caches, () => false);
        if (service) ctx.state.service = { ...service, db, caches };
        const current = await readIfFound(ctx, read, db);
        if (current !== undefined && wanted !== '*' && !wanted.includes(entityTagOf(current)))
          throw preconditionFailed();
        await next();
      }, CONDITIONAL_TRANSACTION);
    } catch (error) {
      throw isSerializationFailure(error) ? preconditionFailed() : error;
    } finally {
      ctx.state.db = undefined;
      ctx.state.service = service;
      // The writes committed only now: this process's cached values of the project are stale.
      if (service) deps.caches?.versions.projectWritten(service.project.id);
    }
  };
}

/** The current representation, or undefined when the path names no resource (the handler answers that). */
async function readIfFound(ctx: AppContext, read: CurrentReader, db: Database): Promise<unknown> {
  let current: unknown;
  try {
    current = await read(ctx, db);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  }
  // A reader that shows no resource would let every tag pass: refuse to write instead.
  if (current === null || typeof current !== 'object') throw new Error('The current representation could not be read.');
  return current;
}
