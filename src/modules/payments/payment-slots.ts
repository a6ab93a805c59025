import { CONNECT_TIMEOUT_MS, DATABASE_RETRY_AFTER_SECONDS } from '../../db/availability.js';
import { AppError } from '../../shared/errors.js';
import { KeyedLimiter } from '../../shared/keyed-limiter.js';

/**
 * The process's places for payments made inside a transaction through a provider outside it (a checkout's
 * completion through Stripe holds a pooled connection, and its rows, for the provider's latency): half the pool, one
 * project at most half of those. So a slow provider or one store's sale never holds the connections every other
 * request and store needs (the pool is the process's, shared by every project). A payment waits for a place as
 * long as a request waits for a connection, then answers 503.
 */
export function paymentSlotsFor(poolSize: number): KeyedLimiter {
  const total = Math.max(1, Math.floor(poolSize / 2));
  return new KeyedLimiter(total, Math.max(1, Math.ceil(total / 2)), CONNECT_TIMEOUT_MS);
}

/** 503 service_unavailable with Retry-After: no place for the payment freed within the wait (nothing was charged). */
export const paymentsBusy = (): AppError =>
  new AppError(
    'service_unavailable',
    `Too many payments through the payment provider are under way on this server right now; nothing was charged. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } },
  );
