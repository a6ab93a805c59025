import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { RequestState } from '../state.js';

/** Every contract violation seen in this process; the test suite fails when it is not empty. */
export const contractViolations: string[] = [];

/**
 * Validates every answer's status and body against openapi.yaml; a violation is recorded, logged and
 * turned into a 500 so no test can pass on a response the contract does not allow.
 */
export function responseCheck(log: Logger): Middleware<RequestState> {
  // The compiled validators are large: only a process that checks answers (tests, RESPONSE_CHECK=true) loads them.
  const checker = import('./contract-checker.js').then(({ ContractChecker }) => new ContractChecker());
  return async (ctx, next) => {
    await next();
    if (ctx.method === 'OPTIONS' || ctx.method === 'HEAD') return;
    const operation = ctx.state.operation;
    // An answer encoded on the way out (itemJsonAnswers) is checked as the text it sends, which must also parse
    // to its object, members in the same order (an item changed after its page was built would be sent as it was).
    const encodedFrom = ctx.state.encodedFrom;
    const body: unknown = encodedFrom ? JSON.parse(ctx.body as string) : ctx.body;
    const violation =
      encodedFrom && JSON.stringify(encodedFrom) !== JSON.stringify(body)
        ? `${operation?.operationId ?? 'unrouted'} ${ctx.status}: the list sent differs from the handler's answer (an item changed after its page was built)`
        : (await checker).violation(operation, ctx.status, body, Object.hasOwn(ctx.query, 'fields'));
    if (!violation) return;
    contractViolations.push(`${ctx.method} ${ctx.url}: ${violation}`);
    log.error('contract violation', { requestId: ctx.state.requestId, violation });
    ctx.status = 500;
    ctx.body = new AppError('internal_error', `Response violates openapi.yaml: ${violation}`).toBody();
  };
}
