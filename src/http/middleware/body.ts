import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../../shared/errors.js';
import type { RequestState } from '../state.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** The deepest nesting of objects and arrays a body may have: the contract's deepest body is far shallower. */
export const MAX_BODY_DEPTH = 32;

// V8 quotes the start of the text it could not parse (`Unexpected token 'W', "{"password": W..." is
// not valid JSON`); the body may hold a password, so the quote is left out of the answer.
const withoutQuotedBody = (message: string) =>
  message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, ' (not valid JSON)');

const parserOptions = {
  json: true,
  jsonStrict: true,
  jsonLimit: MAX_BODY_BYTES,
  urlencoded: false,
  text: false,
  multipart: false,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError: (error: Error) => {
    const status = (error as { status?: number }).status;
    throw new AppError(
      'invalid_request',
      status === 413
        ? 'The request body is larger than 1 MiB.'
        : `The request body is not valid JSON: ${withoutQuotedBody(error.message)}`,
    );
  },
};
const parseJson = koaBody(parserOptions);
/** Also keeps the body's text (koa-body's `includeUnparsed`), for a signature over it. */
const parseJsonKeepingRaw = koaBody({ ...parserOptions, includeUnparsed: true });

/** How deeply `value` nests objects and arrays (a scalar: 0), walked without recursion so any depth is safe. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Parses the JSON body of operations that take one: a body in any other content type, malformed JSON,
 * over 1 MiB or nested deeper than 32 levels answers 400 invalid_request before anything reads it.
 * Leaves `ctx.request.body` undefined when none was sent.
 */
export function jsonBody(keepRaw = false): Middleware<RequestState> {
  const parse = keepRaw ? parseJsonKeepingRaw : parseJson;
  return async (ctx, next) => {
    if (!hasBody(ctx.req.headers)) {
      ctx.request.body = undefined;
      return next() as Promise<void>;
    }
    if (!ctx.request.is('application/json')) {
      throw new AppError('invalid_request', 'Send the request body as JSON with Content-Type: application/json.', {
        field: 'Content-Type',
      });
    }
    return parse(ctx, async () => {
      if (keepRaw) {
        // koa-body 8 keeps the text as `ctx.request.rawBody` with includeUnparsed.
        const raw = (ctx.request as { rawBody?: unknown }).rawBody;
        if (typeof raw === 'string') ctx.state.rawBody = raw;
      }
      if (nestingDepth(ctx.request.body) > MAX_BODY_DEPTH) {
        throw new AppError(
          'invalid_request',
          `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`,
        );
      }
      await next();
    }) as Promise<void>;
  };
}
