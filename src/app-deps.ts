import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { ReplicaSet } from './db/replicas.js';
import type { Logger } from './shared/logger.js';
import type { JobSender } from './shared/job-types.js';
import type { Metrics } from './shared/metrics.js';
import type { ProcessCaches } from './shared/table-version-cache.js';
import type { OutboundAgent } from './shared/outbound.js';
import type { KeyedLimiter } from './shared/keyed-limiter.js';
// The parts' own files, not the areas' index.ts: an index pulls in the area's handlers and services,
// which take AppDeps, and a type import of them here would close a cycle.
import type { AuthCache } from './modules/platform/auth-cache.js';
import type { RateLimiter } from './modules/usage/rate-limiter.js';
import type { CarrierGateway } from './modules/shipping/carrier-gateway.js';

/** What handlers and services need from the running process; passed explicitly, no container. */
export interface AppDeps {
  db: Database;
  config: Config;
  log: Logger;
  /** pg-boss: sends jobs (inside transactions) and, when RUN_JOBS, runs their workers. */
  jobs: JobSender;
  /** Per-project request limits; absent means unlimited (tools that drive services directly). */
  rateLimiter?: RateLimiter;
  /** List totals, webhook event types and search answers, kept exact by the change feed; absent: every read goes to the database. */
  caches?: ProcessCaches;
  /** Cached API keys; absent means every request reads the key from the database. */
  authCache?: AuthCache;
  /** The outbound HTTPS pool for webhooks and callbacks; absent means the process-wide one (tests pass one trusting their CA). */
  outbound?: OutboundAgent;
  /** Carrier callbacks with their circuit breakers and answer cache; absent means the process-wide one. */
  carrierGateway?: CarrierGateway;
  /** Streaming replicas for the reads that tolerate lag (DATABASE_REPLICA_URL); absent: every read on `db`. */
  replicas?: ReplicaSet;
  /** The process's Prometheus metrics (`GET /metrics`); absent means nothing is counted. */
  metrics?: Metrics;
  /**
   * Places for payments through a provider outside the database (payments/payment-slots.ts), per project; absent:
   * unlimited (tools that drive services directly).
   */
  paymentSlots?: KeyedLimiter;
}
