import { createHash } from 'node:crypto';
import type { Middleware, Next } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import { CONNECT_TIMEOUT_MS } from '../../db/availability.js';
import { asDatabase } from '../../db/nested-transaction.js';
import { Prisma } from '../../generated/prisma/client.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { AppError, conflict } from '../../shared/errors.js';
import { IDEMPOTENCY_TTL_MS } from '../../shared/idempotency-keys.js';
import type { AppContext, RequestState } from '../state.js';
import { renderError } from './errors.js';

// The key's lease is the row lock held by the transaction of the request that owns it. PostgreSQL drops the
// lock (rolling back everything the request wrote) as soon as the owner's connection closes, at once when
// its process dies; this bounds the wait when the owner's host vanishes without closing it.
const OWNER_IDLE_TIMEOUT = '60s';
// An idempotent request's transaction spans its handler: time to get a connection (the 503 bound) and to run.
const REQUEST_TRANSACTION = { maxWait: CONNECT_TIMEOUT_MS, timeout: 30_000 };
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
// A key found locked is tried again for this long before the 409: a dead owner's lock goes when PostgreSQL sees its
// connection close, which a pooler or a loaded host can delay by a moment, and a retry sent right after the crash
// should run rather than be refused. No connection is held while waiting.
const BUSY_WAIT_MS = 1_000;
const BUSY_RETRY_MS = 100;

// Keys belong to the credential that sent them, in its data mode (a live key with X-Test-Mode is another
// scope): one key's stored answer (a webhook secret, say) is never replayed to another key of the project.
// A publishable key is public (every shopper of the store sends it), so without a customer token the credential
// is also the checkout secret sent (its digest): a stored checkout or order is replayed only to whoever could
// reach it, never to another shopper who learnt the checkout id and the Idempotency-Key.
function scopeOf(ctx: AppContext): string {
  const service = ctx.state.service;
  if (!service) return 'platform';
  const { actor } = service;
  const credential =
    actor.kind === 'api_key' ? actor.id : actor.kind === 'customer' ? `customer:${actor.id}` : actor.name;
  const checkoutSecret =
    actor.kind === 'api_key' && actor.keyType === 'publishable' ? ctx.get('X-Checkout-Secret') : '';
  const proof = checkoutSecret ? `:${createHash('sha256').update(checkoutSecret).digest('base64url')}` : '';
  return `${service.project.id}:${credential}${proof}:${service.mode}`;
}

/**
 * Idempotency-Key for create operations: the first request with a key runs and its 2xx or 4xx answer is
 * stored; a replay answers the stored status and body. The same key with another method, path or body,
 * or while the first request still runs (after up to a second's wait for it), answers 409 conflict. Keys are per API key (or customer) and data
 * mode, and last 24 hours.
 *
 * Crash safety: the request runs in one transaction with its key. The handler's writes (its services'
 * transactions become savepoints in it) and the stored answer commit together, and that transaction holds
 * the key's row lock while the request runs. So a key is either answered (writes and answer committed) or
 * not (nothing committed): a process killed mid-request leaves no half-done create, and its key, unlocked
 * once PostgreSQL sees the connection close, is run afresh by the next request with it. A 5xx answer rolls
 * the request's writes back, so a retry is safe too.
 */
export function idempotency(deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) return next() as Promise<void>;
    if (!KEY_FORMAT.test(key)) {
      throw new AppError('invalid_request', 'Idempotency-Key must be 1-255 printable ASCII characters.', {
        field: 'Idempotency-Key',
      });
    }
    const request: IdempotentRequest = {
      scope: scopeOf(ctx),
      key,
      method: ctx.method,
      path: ctx.path,
      bodyHash: createHash('sha256')
        .update(canonicalJson(ctx.request.body ?? null))
        .digest('hex'),
    };
    // The key row can vanish between inserting and locking it (a failed request deleting it): tried once more.
    const busyUntil = Date.now() + BUSY_WAIT_MS;
    for (let vanished = 0; ;) {
      await deps.db.idempotencyKey.createMany({ data: [{ ...request, state: 'running' }], skipDuplicates: true });
      const outcome = await runOwned(ctx, deps, request, next);
      if (outcome === 'answered') return;
      if (outcome === 'vanished' && ++vanished < 2) continue;
      if (outcome === 'busy' && Date.now() + BUSY_RETRY_MS <= busyUntil) {
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
        continue;
      }
      throw conflict('A request with this Idempotency-Key is still being processed. Retry shortly.', 'Idempotency-Key');
    }
  };
}

type IdempotentRequest = { scope: string; key: string; method: string; path: string; bodyHash: string };
type KeyRow = {
  method: string;
  path: string;
  body_hash: string;
  state: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
};

/** Rolls the request's transaction back while keeping the answer already rendered (a 5xx). */
class RollBack extends Error {}

/**
 * Locks the key's row (without waiting) and, unless another live request holds it, answers: a replay of the
 * stored answer, a 409 for another request under the same key, or the request itself, run inside the
 * transaction that then stores its answer. 'busy' when the key is locked, 'vanished' when its row is gone.
 */
async function runOwned(
  ctx: AppContext,
  deps: AppDeps,
  request: IdempotentRequest,
  next: Next,
): Promise<'answered' | 'busy' | 'vanished'> {
  const where = { scope_key: { scope: request.scope, key: request.key } };
  const service = ctx.state.service;
  let outcome: 'answered' | 'busy' | 'vanished' = 'answered';
  try {
    await deps.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL idle_in_transaction_session_timeout = '${OWNER_IDLE_TIMEOUT}'`);
      let rows: KeyRow[];
      try {
        rows = await tx.$queryRaw<KeyRow[]>`
          SELECT method, path, body_hash, state, response_status, response_body, created_at FROM idempotency_keys
          WHERE scope = ${request.scope} AND key = ${request.key} FOR UPDATE NOWAIT`;
      } catch (error) {
        if (!isLockNotAvailable(error)) throw error;
        outcome = 'busy';
        throw new RollBack();
      }
      const row = rows[0];
      if (!row) {
        outcome = 'vanished';
        throw new RollBack();
      }
      const expired = row.created_at.getTime() < Date.now() - IDEMPOTENCY_TTL_MS;
      if (expired) {
        // An expired key (not yet purged) is used afresh.
        await tx.idempotencyKey.update({
          where,
          data: {
            ...request,
            state: 'running',
            responseStatus: null,
            responseBody: Prisma.DbNull,
            createdAt: new Date(),
          },
        });
      } else if (row.method !== request.method || row.path !== request.path || row.body_hash !== request.bodyHash) {
        throw conflict(
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
          'Idempotency-Key',
        );
      } else if (row.state === 'done' && row.response_status !== null) {
        ctx.status = row.response_status;
        ctx.body = row.response_body ?? undefined;
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
      // The key is this request's: new, or left running by a request whose process died (its writes were rolled back with it).
      const db = asDatabase(tx);
      ctx.state.db = db;
      if (service) ctx.state.service = { ...service, db };
      await tx.$executeRawUnsafe('SAVEPOINT handler');
      try {
        await next();
      } catch (error) {
        renderError(ctx, error, deps.log);
      } finally {
        ctx.state.db = undefined;
        ctx.state.service = service;
      }
      if (ctx.status >= 500) throw new RollBack();
      // A refused request leaves nothing behind (an error may also have aborted the transaction): only its answer is kept.
      if (ctx.status >= 400) await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT handler');
      await tx.idempotencyKey.update({
        where,
        data: { state: 'done', responseStatus: ctx.status, responseBody: (ctx.body ?? null) as Prisma.InputJsonValue },
      });
    }, REQUEST_TRANSACTION);
  } catch (error) {
    if (error instanceof RollBack) {
      // A 5xx: nothing of the request stays; neither does its key, so a retry runs afresh (failing to delete
      // it, with the database gone, leaves it unlocked, which a retry takes over all the same).
      if (outcome === 'answered')
        await deps.db.idempotencyKey.deleteMany({ where: { ...where.scope_key, state: 'running' } }).catch(() => {});
      return outcome;
    }
    // Not committed (or not known to be): whatever the handler answered must not reach the client.
    ctx.remove('Idempotent-Replayed');
    renderError(ctx, error, deps.log);
  } finally {
    // The request's writes committed only now: this process's cached values of the project are stale.
    if (service && ctx.status < 500) deps.caches?.versions.projectWritten(service.project.id);
  }
  return 'answered';
}

const isLockNotAvailable = (error: unknown) =>
  JSON.stringify((error as { meta?: unknown })?.meta ?? {}).includes('55P03') ||
  String((error as Error)?.message).includes('55P03');
