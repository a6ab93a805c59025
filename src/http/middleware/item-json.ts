import type { Middleware } from 'koa';
import { encodeWithItemJson } from '../../shared/item-json.js';
import type { RequestState } from '../state.js';

/**
 * Sends a JSON answer whose list carries its items' JSON text (a list page, see src/shared/item-json.ts) as that
 * text joined, instead of letting Koa encode the whole body again. Keeps the object it replaced in
 * `state.encodedFrom`, so the response check (outside this step) validates the text sent and that it is the object's.
 */
export function itemJsonAnswers(): Middleware<RequestState> {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (ctx.status !== 200 || body === null || typeof body !== 'object') return;
    const text = encodeWithItemJson(body);
    if (text === undefined) return;
    ctx.state.encodedFrom = body;
    ctx.body = text;
    ctx.type = 'application/json';
  };
}
