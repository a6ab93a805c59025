import type { Middleware } from 'koa';
import type { Metrics } from '../../shared/metrics.js';
import type { RequestState } from '../state.js';

/** Counts every answered request in the process's metrics: its operationId (or `unmatched`), status and latency. */
export function requestMetrics(metrics: Metrics): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const errorCode = (ctx.body as { error?: { code?: unknown } } | undefined)?.error?.code;
      metrics.observeRequest(
        ctx.state.operation?.operationId ?? 'unmatched',
        ctx.status,
        (performance.now() - started) / 1000,
        typeof errorCode === 'string' ? errorCode : undefined,
      );
    }
  };
}
