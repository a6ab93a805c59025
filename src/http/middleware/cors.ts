import type { Middleware } from 'koa';
import type { AuthKind } from '../../generated/operations.js';
import type { RequestState } from '../state.js';

/** Operations a storefront calls from the browser: those that take a publishable key (or a customer token with it). */
export const BROWSER_AUTH: ReadonlySet<AuthKind> = new Set(['publishable', 'customer']);

const ALLOW_HEADERS =
  'X-API-Key, Authorization, Content-Type, Idempotency-Key, If-Match, X-Test-Mode, X-Request-Id, X-Consistency-Token, X-Checkout-Secret';
const EXPOSE_HEADERS =
  'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, ETag, X-Consistency-Token';
// Browsers cache the preflight this long (Chromium caps it at 2 hours).
const MAX_AGE_SECONDS = '7200';

/**
 * CORS headers on every answer of a browser operation, errors included: any origin (publishable keys are
 * public; no cookies are used, so `*` is safe), with the headers a storefront must read exposed.
 */
export function corsHeaders(): Middleware<RequestState> {
  return async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    await next();
  };
}

/** The preflight answer (204) for a path whose browser operations use `methods`. */
export function corsPreflight(methods: string[]): Middleware<RequestState> {
  const allowMethods = [...new Set(methods)].sort().join(', ');
  return async (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Allow-Methods', allowMethods);
    ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
    ctx.set('Access-Control-Max-Age', MAX_AGE_SECONDS);
    ctx.status = 204;
  };
}
