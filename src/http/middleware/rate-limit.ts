import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../shared/errors.js';
import { recordUsageWarnings, secondsUntil } from '../../modules/usage/index.js';
import type { RequestState } from '../state.js';

/**
 * The per-minute rate limit and the monthly quota of the caller's project (every authenticated /v1
 * request counts, refused ones excepted): X-RateLimit-* headers on every answer, errors included;
 * beyond the quota 429 quota_exceeded, beyond the minute's limit 429 rate_limited, each with Retry-After.
 */
export function rateLimit(deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const service = ctx.state.service;
    if (!service || !deps.rateLimiter) return next() as Promise<void>;
    const now = new Date();
    const decision = await deps.rateLimiter.take(service.project, now);
    const reset = secondsUntil(now, decision.windows.minuteEnd);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(reset));
    for (const crossing of decision.crossed)
      await recordUsageWarnings(deps, service.project, decision.windows.period, crossing);
    if (decision.refusedBy === 'quota_exceeded') {
      throw new AppError(
        'quota_exceeded',
        `This project used its monthly quota of ${service.project.monthlyQuota} requests. It renews at the start of next month (UTC).`,
        {
          headers: { 'Retry-After': String(secondsUntil(now, decision.windows.monthEnd)) },
        },
      );
    }
    if (decision.refusedBy === 'rate_limited') {
      throw new AppError(
        'rate_limited',
        `Rate limit of ${decision.limit} requests a minute exceeded. Retry after ${reset} seconds.`,
        {
          headers: { 'Retry-After': String(reset) },
        },
      );
    }
    await next();
  };
}
