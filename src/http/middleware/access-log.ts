import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logger.js';
import type { RequestState } from '../state.js';

/** One line per answered request: method, path (never the query, which may carry tokens), status, time. */
export function accessLog(log: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      log.info('request', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        operation: ctx.state.operation?.operationId,
        project: ctx.state.service?.project.id,
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    }
  };
}
