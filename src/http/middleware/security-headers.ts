import type { Middleware } from 'koa';
import type { RequestState } from '../state.js';

/**
 * Headers on every answer, errors included: `X-Content-Type-Options: nosniff` (browsers never guess a type), and
 * `Cache-Control: no-store` unless the handler chose a policy (the docs assets are public and cacheable), so no
 * shared or browser cache keeps an answer that an API key or a customer token fetched. No `X-Powered-By`.
 */
export function securityHeaders(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
      ctx.remove('X-Powered-By');
    }
  };
}
