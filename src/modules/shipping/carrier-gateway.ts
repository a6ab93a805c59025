import { createHash } from 'node:crypto';
import { OutboundError, postJson, type OutboundAgent, type Resolver } from '../../shared/outbound.js';
import type { Logger } from '../../shared/logger.js';
import { TtlCache } from './answer-cache.js';
import { parseCarrierAnswer } from './carrier-answer.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { AvailableRate } from './rate-selection.js';

/** A carrier callback must answer within 5 seconds; one budget for DNS, connect, TLS and the answer. */
export const CARRIER_TIMEOUT_MS = 5_000;
// Ten rates take well under 4 KiB; a bigger answer is a broken carrier, not one worth reading.
const MAX_ANSWER_BYTES = 64 * 1024;
// One checkout asks the same question several times within a minute; 10,000 answers of at most ten
// rates each stay within a few MiB (one project's at most 2,500).
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

const HEADERS = { accept: 'application/json', 'user-agent': 'commerce-api-carrier-callback/1' };

/** Who calls, and how the outbound request may go. */
export interface CarrierCall {
  /** The zone's project: its answers are kept within its share of the cache. */
  projectId: string;
  zoneId: string;
  url: string;
  /** The JSON body (the CarrierCallbackRequest); also the cache key with the zone and URL. */
  body: string;
  currency: string;
  requestId: string;
  log: Logger;
  /** config.allowPrivateNetworkTargets. */
  allowPrivate: boolean;
  /** The outbound pool (tests pass one trusting their CA); default the process-wide one. */
  agent?: OutboundAgent;
}

export interface CarrierGatewayOptions {
  timeoutMs?: number;
  breaker?: CircuitBreaker;
  cache?: TtlCache<AvailableRate[]>;
  /** Replaces DNS (tests). */
  resolve?: Resolver;
}

/**
 * Carrier callbacks for the rate lookup, with a circuit breaker per zone (and URL) and a 60 s cache of good answers
 * per (zone, URL, request body), one project's at most a quarter of each, both in this process's memory: the hot path writes nothing to the
 * database and a carrier that is down costs at most one 5 s wait per zone a minute after three failures.
 */
export class CarrierGateway {
  readonly breaker: CircuitBreaker;
  private readonly cache: TtlCache<AvailableRate[]>;
  private readonly timeoutMs: number;
  private readonly resolve?: Resolver;

  constructor(options: CarrierGatewayOptions = {}) {
    this.breaker = options.breaker ?? new CircuitBreaker();
    this.cache = options.cache ?? new TtlCache({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });
    this.timeoutMs = options.timeoutMs ?? CARRIER_TIMEOUT_MS;
    this.resolve = options.resolve;
  }

  /**
   * The carrier's rates in the requested currency (at most 10), or [] when the carrier failed, timed out,
   * answered something unusable or is skipped by its open circuit. Never throws; logs every call with its
   * duration and outcome.
   */
  async rates(call: CarrierCall): Promise<AvailableRate[]> {
    const key = createHash('sha256').update(`${call.zoneId}\n${call.url}\n${call.body}`).digest('base64url');
    const cached = this.cache.get(call.projectId, key);
    if (cached) {
      call.log.debug('carrier callback answered from cache', {
        request_id: call.requestId,
        zone_id: call.zoneId,
        rates: cached.length,
      });
      return cached;
    }
    // Per zone and URL: a merchant who fixes a broken callback URL is not held up by the old one's circuit.
    const circuit = `${call.zoneId} ${call.url}`;
    const decision = this.breaker.decide(call.projectId, circuit);
    if (decision === 'skip') {
      call.log.debug('carrier callback skipped: circuit open', { request_id: call.requestId, zone_id: call.zoneId });
      return [];
    }
    const started = performance.now();
    const outcome = await this.call(call);
    const fields = {
      request_id: call.requestId,
      zone_id: call.zoneId,
      host: hostOf(call.url),
      duration_ms: Math.round(performance.now() - started),
      trial: decision === 'trial',
    };
    if (outcome.ok) {
      this.breaker.success(call.projectId, circuit);
      this.cache.set(call.projectId, key, outcome.rates);
      call.log.info('carrier callback', { ...fields, outcome: 'ok', rates: outcome.rates.length });
      return outcome.rates;
    }
    this.breaker.failure(call.projectId, circuit, decision);
    // A failing carrier logs at warn: a few lines, then one trial a minute per zone once its circuit opens.
    call.log.warn('carrier callback', {
      ...fields,
      outcome: outcome.failure,
      detail: outcome.detail,
      circuit: this.breaker.state(call.projectId, circuit),
    });
    return [];
  }

  private async call(call: CarrierCall) {
    try {
      const answer = await postJson(call.url, call.body, {
        headers: { ...HEADERS, 'x-request-id': call.requestId },
        timeoutMs: this.timeoutMs,
        maxBodyBytes: MAX_ANSWER_BYTES,
        allowPrivate: call.allowPrivate,
        agent: call.agent,
        resolve: this.resolve,
      });
      return parseCarrierAnswer(answer, call.zoneId, call.currency);
    } catch (error) {
      if (error instanceof OutboundError) return { ok: false as const, failure: error.reason, detail: error.message };
      call.log.error('carrier callback failed unexpectedly', {
        request_id: call.requestId,
        zone_id: call.zoneId,
        error: String(error),
      });
      return { ok: false as const, failure: 'internal', detail: 'unexpected error' };
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}

let shared: CarrierGateway | undefined;

/** The one gateway of this process (breakers and cache are per process); made on first use. */
export function sharedCarrierGateway(): CarrierGateway {
  shared ??= new CarrierGateway();
  return shared;
}
