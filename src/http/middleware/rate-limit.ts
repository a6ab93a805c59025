import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import type { OperationId } from '../../generated/operations.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import {
  addressBudgetKey,
  checkoutBudgetKey,
  clientShareOf,
  emailBudgetKey,
  minuteLimitOf,
  recordUsageWarnings,
  secondsUntil,
  storefrontAddressKey,
  storefrontCustomerKey,
  takeClientBudget,
  windowsAt,
  type RateLimiter,
} from '../../modules/usage/index.js';
import type { AppContext, RequestState } from '../state.js';

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

/**
 * Names of the per-minute policies in the RateLimit headers: secret keys' budget, the storefront's own, and one
 * storefront client's share of it (on the 429 that refuses the client).
 */
const POLICY_OF_LANE = { merchant: 'minute', storefront: 'storefront', client: 'client' } as const;
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
 * Sets the X-RateLimit-* and RateLimit-Policy / RateLimit headers of a lane's (or a storefront client's) minute.
 */
function setRateLimitHeaders(
  ctx: AppContext,
  lane: keyof typeof POLICY_OF_LANE,
  limit: number,
  remaining: number,
  reset: number,
): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
  ctx.set('X-RateLimit-Reset', String(reset));
  const fields = rateLimitFields(lane, limit, remaining, reset);
  ctx.set('RateLimit-Policy', fields.policy);
  ctx.set('RateLimit', fields.limit);
}

/**
 * Takes one request from the share of the storefront budget of each client the request comes from (its address;
 * the signed-in customer, when a customer token was sent); throws 429 rate_limited with the client's figures in
 * the headers when one of them spent its share, before the store's budget is touched. Nothing at a share of 100 %.
 */
async function takeClientShare(ctx: AppContext, limiter: RateLimiter, service: Ctx, now: Date): Promise<void> {
  const { project } = service;
  // At 100 % a client's share is the store's whole budget, which the store's own count bounds already.
  if (project.storefrontClientSharePercent >= 100) return;
  const share = clientShareOf(project, minuteLimitOf(project, 'storefront'));
  const keys = [storefrontAddressKey(ctx.ip)];
  if (service.actor.kind === 'customer') keys.push(storefrontCustomerKey(service.actor.id));
  const windows = windowsAt(now);
  const decision = await limiter.clients.take(project.id, keys, share, windows, now);
  if (decision.refusedBy === null) return;
  const reset = secondsUntil(now, windows.minuteEnd);
  setRateLimitHeaders(ctx, 'client', share, 0, reset);
  const who = decision.refusedBy === keys[0] ? 'this address' : 'this customer';
  throw new AppError(
    'rate_limited',
    `Too many requests from ${who}: one client may make at most ${share} storefront requests a minute (${project.storefrontClientSharePercent} % of the store's budget). Retry after ${reset} seconds.`,
    { headers: { 'Retry-After': String(reset) } },
  );
}

/**
 * The caller's per-minute budget (every authenticated /v1 request counts, refused ones excepted): secret keys
 * spend the project's rate limit and monthly quota; storefront traffic (publishable keys, customer tokens)
 * its own per-minute budget and no quota, each storefront client (address; signed-in customer) at most its share
 * of it (checked first, so a refused client spends nothing of the store's budget). X-RateLimit-* and
 * RateLimit-Policy / RateLimit headers on every answer, errors included; beyond the
 * quota 429 quota_exceeded, beyond the minute's budget or a client's share 429 rate_limited, each with
 * Retry-After. Sign-in, registration, refresh and password reset also spend per-client budgets (client
 * address, email address).
 */
export function rateLimit(deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const service = ctx.state.service;
    if (!service || !deps.rateLimiter) return next() as Promise<void>;
    const now = new Date();
    const lane = isStorefront(service) ? 'storefront' : 'merchant';
    if (lane === 'storefront') await takeClientShare(ctx, deps.rateLimiter, service, now);
    const decision = await deps.rateLimiter.take(service.project, now, lane);
    const reset = secondsUntil(now, decision.windows.minuteEnd);
    setRateLimitHeaders(ctx, lane, decision.limit, decision.remaining, reset);
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
    if (
      (ctx.state.operation?.operationId === 'createCheckout' ||
        ctx.state.operation?.operationId === 'createCheckoutFromDraft') &&
      !(await takeClientBudget(
        deps.db,
        service.project.id,
        checkoutBudgetKey(ctx.ip),
        service.project.checkoutsPerIpPerMinute,
        decision.windows.minuteStart,
      ))
    ) {
      throw refuse(
        `Too many checkouts started from this address (at most ${service.project.checkoutsPerIpPerMinute} a minute).`,
      );
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
