import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { RequestState } from '../state.js';

const ACCEPTABLE = /^[\x21-\x7e]{1,200}$/;

/** Gives every request an id (the caller's X-Request-Id when sensible) and echoes it on the answer. */
export function requestId(): Middleware<RequestState> {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    ctx.state.requestId = ACCEPTABLE.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
