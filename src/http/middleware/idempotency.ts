import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { AppError, conflict } from '../../shared/errors.js';
import { IDEMPOTENCY_TTL_MS } from '../../shared/idempotency-keys.js';
import type { AppContext, RequestState } from '../state.js';
import { renderError } from './errors.js';

// A request that has not answered after this long died with its process; its key may be taken over.
const ABANDONED_AFTER_MS = 60 * 1000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function scopeOf(ctx: AppContext): string {
  return ctx.state.service?.project.id ?? 'platform';
}

/**
 * Idempotency-Key for create operations: the first request with a key runs and its 2xx or 4xx answer is
 * stored; a replay answers the stored status and body. The same key with another method, path or body,
 * or while the first request still runs, answers 409 conflict. Keys are per project and last 24 hours.
 */
export function idempotency(deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) return next();
    if (!KEY_FORMAT.test(key)) {
      throw new AppError('invalid_request', 'Idempotency-Key must be 1-255 printable ASCII characters.', { field: 'Idempotency-Key' });
    }
    const request = {
      scope: scopeOf(ctx),
      key,
      method: ctx.method,
      path: ctx.path,
      bodyHash: createHash('sha256').update(canonicalJson(ctx.request.body ?? null)).digest('hex'),
    };
    if (!(await claim(deps, request))) return replay(ctx, deps, request);

    try {
      await next();
    } catch (error) {
      renderError(ctx, error, deps.log);
    }
    const where = { scope_key: { scope: request.scope, key } };
    if (ctx.status >= 500) {
      await deps.db.idempotencyKey.delete({ where });
    } else {
      await deps.db.idempotencyKey.update({
        where,
        data: { state: 'done', responseStatus: ctx.status, responseBody: (ctx.body ?? null) as Prisma.InputJsonValue },
      });
    }
  };
}

type IdempotentRequest = { scope: string; key: string; method: string; path: string; bodyHash: string };

/** Records the key as running for this request; false when another request holds it. */
async function claim(deps: AppDeps, request: IdempotentRequest): Promise<boolean> {
  const now = Date.now();
  const insert = () => deps.db.idempotencyKey.createMany({ data: [{ ...request, state: 'running' }], skipDuplicates: true });
  if ((await insert()).count === 1) return true;
  // The key exists: an expired one (older than 24 hours, not yet purged) is used afresh.
  const expired = await deps.db.idempotencyKey.deleteMany({
    where: { scope: request.scope, key: request.key, createdAt: { lt: new Date(now - IDEMPOTENCY_TTL_MS) } },
  });
  if (expired.count === 1 && (await insert()).count === 1) return true;
  const takenOver = await deps.db.idempotencyKey.updateMany({
    where: { scope: request.scope, key: request.key, state: 'running', createdAt: { lt: new Date(now - ABANDONED_AFTER_MS) } },
    data: { ...request, createdAt: new Date(now) },
  });
  return takenOver.count === 1;
}

async function replay(ctx: AppContext, deps: AppDeps, request: IdempotentRequest): Promise<void> {
  const stored = await deps.db.idempotencyKey.findUnique({ where: { scope_key: { scope: request.scope, key: request.key } } });
  if (!stored) throw conflict('A request with this Idempotency-Key is still being processed. Retry shortly.', 'Idempotency-Key');
  if (stored.method !== request.method || stored.path !== request.path || stored.bodyHash !== request.bodyHash) {
    throw conflict('This Idempotency-Key was already used with a different request. Use a new key for a new request.', 'Idempotency-Key');
  }
  if (stored.state !== 'done' || stored.responseStatus === null) {
    throw conflict('A request with this Idempotency-Key is still being processed. Retry shortly.', 'Idempotency-Key');
  }
  ctx.status = stored.responseStatus;
  ctx.body = stored.responseBody ?? undefined;
  ctx.set('Idempotent-Replayed', 'true');
}
