import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import type { OperationId } from '../../generated/operations.js';
import { isStorefront } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import {
  addressBudgetKey,
  emailBudgetKey,
  recordUsageWarnings,
  secondsUntil,
  takeClientBudget,
} from '../../modules/usage/index.js';
import type { RequestState } from '../state.js';

/** The storefront operations a single client could abuse to guess passwords or flood e-mails: budgets per client. */
const PER_CLIENT_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([
  'registerCustomer',
  'loginCustomer',
  'refreshCustomerToken',
  'requestPasswordReset',
  'resetPassword',
]);

const emailOf = (body: unknown): string | undefined => {
  const email = (body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.length <= 320 ? email : undefined;
};

/** Names of the per-minute policies in the RateLimit headers: secret keys' budget, and the storefront's own. */
const POLICY_OF_LANE = { merchant: 'minute', storefront: 'storefront' } as const;
const WINDOW_SECONDS = 60;

/**
 * The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured fields) for
 * a lane's per-minute budget: `"minute";q=600;w=60` and `"minute";r=587;t=42` (quota, window, remaining, reset).
 */
export function rateLimitFields(
  lane: keyof typeof POLICY_OF_LANE,
  quota: number,
  remaining: number,
  reset: number,
): { policy: string; limit: string } {
  const name = POLICY_OF_LANE[lane];
  return {
    policy: `"${name}";q=${quota};w=${WINDOW_SECONDS}`,
    limit: `"${name}";r=${remaining};t=${reset}`,
  };
}

/**
 * The caller's per-minute budget (every authenticated /v1 request counts, refused ones excepted): secret keys
 * spend the project's rate limit and monthly quota; storefront traffic (publishable keys, customer tokens)
 * its own per-minute budget and no quota. X-RateLimit-* and RateLimit-Policy / RateLimit headers on every
 * answer, errors included; beyond the
 * quota 429 quota_exceeded, beyond the minute's budget 429 rate_limited, each with Retry-After. Sign-in,
 * registration, refresh and password reset also spend per-client budgets (client address, email address).
 */
export function rateLimit(deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const service = ctx.state.service;
    if (!service || !deps.rateLimiter) return next() as Promise<void>;
    const now = new Date();
    const lane = isStorefront(service) ? 'storefront' : 'merchant';
    const decision = await deps.rateLimiter.take(service.project, now, lane);
    const reset = secondsUntil(now, decision.windows.minuteEnd);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(reset));
    const fields = rateLimitFields(lane, decision.limit, decision.remaining, reset);
    ctx.set('RateLimit-Policy', fields.policy);
    ctx.set('RateLimit', fields.limit);
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
    const refuse = (message: string) =>
      new AppError('rate_limited', `${message} Retry after ${reset} seconds.`, {
        headers: { 'Retry-After': String(reset) },
      });
    if (decision.refusedBy === 'rate_limited') {
      throw refuse(`Rate limit of ${decision.limit} requests a minute exceeded.`);
    }
    if (ctx.state.operation && PER_CLIENT_OPERATIONS.has(ctx.state.operation.operationId)) {
      const { project } = service;
      const minute = decision.windows.minuteStart;
      if (
        !(await takeClientBudget(
          deps.db,
          project.id,
          addressBudgetKey(ctx.ip),
          project.authAttemptsPerIpPerMinute,
          minute,
        ))
      ) {
        throw refuse(
          `Too many sign-in and password requests from this address (at most ${project.authAttemptsPerIpPerMinute} a minute).`,
        );
      }
      const email = emailOf(ctx.request.body);
      if (
        email !== undefined &&
        !(await takeClientBudget(
          deps.db,
          project.id,
          emailBudgetKey(email),
          project.authAttemptsPerEmailPerMinute,
          minute,
        ))
      ) {
        throw refuse(
          `Too many sign-in and password requests for this email address (at most ${project.authAttemptsPerEmailPerMinute} a minute).`,
        );
      }
    }
    await next();
  };
}
