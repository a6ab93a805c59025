import { performance } from 'node:perf_hooks';
import type { AppDeps } from '../../app-deps.js';
import { OutboundError, postJson } from '../../shared/outbound.js';
import { deliveryHeaders } from './signing.js';

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  project_id: string;
  subscription_id: string;
  event_id: string;
  attempt_count: number;
  /** The lease this attempt holds; its outcome is written only while the lease is still this one. */
  lease_until: Date;
  url: string;
  secret: string;
  /** The secret before the last rotation while its overlap window lasts (it signs too), else null. */
  previous_secret: string | null;
  body: string;
}

/** What one attempt found out. */
export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  /** The receiver answered 2xx. */
  ok: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  /** Why there was no answer. */
  error: string | null;
}

/** No answer within 10 seconds is a failed attempt (openapi.yaml, the `event` webhook). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The history keeps the first 1 KiB of an answer. */
export const RESPONSE_BODY_BYTES = 1024;

/**
 * POSTs the delivery's frozen body, signed now, to its subscription's URL through the outbound helper
 * (https only, addresses checked after DNS, 10 s for everything, 1 KiB of the answer read). Never throws:
 * every way of failing becomes the outcome, counted in the process's metrics.
 */
export async function attemptDelivery(
  deps: Pick<AppDeps, 'config' | 'log' | 'outbound' | 'metrics'>,
  delivery: ClaimedDelivery,
): Promise<AttemptOutcome> {
  const outcome = await post(deps, delivery);
  deps.metrics?.observeWebhookAttempt(outcome.ok, outcome.durationMs);
  return outcome;
}

async function post(
  deps: Pick<AppDeps, 'config' | 'log' | 'outbound'>,
  delivery: ClaimedDelivery,
): Promise<AttemptOutcome> {
  const attemptedAt = new Date();
  const started = performance.now();
  const base = { delivery, attemptedAt };
  try {
    const response = await postJson(delivery.url, delivery.body, {
      headers: deliveryHeaders(
        delivery.secret,
        delivery.event_id,
        delivery.body,
        attemptedAt,
        delivery.previous_secret,
      ),
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBodyBytes: RESPONSE_BODY_BYTES,
      allowPrivate: deps.config.allowPrivateNetworkTargets,
      agent: deps.outbound,
    });
    const ok = response.status >= 200 && response.status < 300;
    // PostgreSQL text cannot hold NUL; a receiver's binary answer is kept without them.
    // eslint-disable-next-line no-control-regex -- NUL is what this removes
    const body = response.body.replace(/\u0000/g, '');
    return {
      ...base,
      ok,
      responseStatus: response.status,
      responseBody: body,
      durationMs: response.durationMs,
      error: null,
    };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    if (error instanceof OutboundError) {
      return {
        ...base,
        ok: false,
        responseStatus: null,
        responseBody: null,
        durationMs,
        error: recordedReason(error),
      };
    }
    deps.log.error('webhook attempt failed unexpectedly', { delivery: delivery.id, error: String(error) });
    return {
      ...base,
      ok: false,
      responseStatus: null,
      responseBody: null,
      durationMs,
      error: 'internal error while sending',
    };
  }
}

// A host that does not resolve and one that resolves to a private address read the same: the record must not
// tell a merchant which internal host names exist (the answer would map the service's network).
const REFUSED_TARGET = 'refused: the host did not resolve to a public address';

/** The failure as a delivery records it: reason and message, one generic text for every refused target. */
function recordedReason(error: OutboundError): string {
  if (error.reason === 'dns' || error.reason === 'private_address') return REFUSED_TARGET;
  return `${error.reason}: ${error.message}`;
}
