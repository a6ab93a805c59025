import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { ReplicaStatus } from '../db/replicas.js';
import type { ProcessCaches } from './table-version-cache.js';

/** A queue's backlog as pg-boss counts it. */
export interface QueueDepth {
  name: string;
  ready: number;
  deferred: number;
  active: number;
  failed: number;
}

/** The job queues' health (src/jobs/health.ts), read at scrape time. */
export interface QueueHealth {
  /** Per queue, the age of its oldest due job no worker has taken yet (queues with none are absent). */
  oldestPendingSeconds: Array<{ queue: string; seconds: number }>;
  /** Webhook deliveries waiting for their first or next attempt. */
  deliveriesPending: number;
  /** Seconds since any worker last ran the heartbeat job; undefined when none ever did. */
  secondsSinceHeartbeat: number | undefined;
}

/** Where the process's gauges are read from at scrape time; each part is optional (absent: its series are not shown). */
export interface MetricSources {
  pool?: () => pg.Pool | undefined;
  caches?: ProcessCaches;
  queues?: () => Promise<QueueDepth[]>;
  queueHealth?: () => Promise<QueueHealth>;
  /** The `process` label every series carries (`<hostname>:<pid>`): processes sharing a port or a scrape stay apart. */
  processName?: string;
  replicas?: { status(): ReplicaStatus[] };
  /** The search log's buffer and what it lost (searchLogCounts). */
  searchLog?: () => { buffered: number; dropped: number; failed: number };
}

const CACHE_NAMES = [
  'listTotals',
  'webhookEventTypes',
  'searchAnswers',
  'suggestIndexes',
  'productIndexes',
  'customerPriceKeys',
  'liveSessions',
  'resolvedPrices',
  'accessTokens',
  'productJson',
] as const;

// Request latency buckets (seconds): the API answers most reads in a few milliseconds.
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's Prometheus metrics on a registry of its own (several apps in one test process never share
 * series): requests by operation and status with a latency histogram, rate-limit refusals, webhook attempts
 * with their latency, and, read at scrape time, the database pool, pg-boss queue depths, cache hits and
 * misses, and the process's memory and event-loop lag (prom-client's defaults).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'commerce_http_requests_total',
    help: 'HTTP requests answered, by operationId (or "unmatched") and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'commerce_http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by operationId.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'commerce_rate_limit_refusals_total',
    help: 'Requests refused with 429, by error code (rate_limited, quota_exceeded).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'commerce_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (success: a 2xx answer; failure: anything else).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly webhookLatency = new Histogram({
    name: 'commerce_webhook_attempt_duration_seconds',
    help: 'Time a webhook delivery attempt took, answered or not.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly routedReads = new Counter({
    name: 'commerce_db_routed_reads_total',
    help:
      'Requests of the operations that may read from a replica, by where they read: target is "primary" or a ' +
      'replica (host:port/database); reason is replica, written (this process wrote to the project and no replica ' +
      "has replayed it yet), token (no replica has replayed the request's X-Consistency-Token), no_replica (none " +
      'in rotation) or failover (the replica failed during the request).',
    labelNames: ['target', 'reason'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricSources = {}) {
    const { pool, caches, queues, queueHealth, replicas, searchLog, processName } = sources;
    if (processName) this.registry.setDefaultLabels({ process: processName });
    collectDefaultMetrics({ register: this.registry, prefix: 'commerce_' });
    // Which process answered the scrape: the API processes of a clustered start (WEB_CONCURRENCY) share one
    // port, and each shows only its own series.
    new Gauge({
      name: 'commerce_process_info',
      help: 'Always 1; pid is the operating-system id of the process whose series these are.',
      labelNames: ['pid'] as const,
      registers: [this.registry],
    }).set({ pid: String(process.pid) }, 1);
    if (queueHealth) this.queueHealthGauges(queueHealth);
    if (searchLog) {
      new Gauge({
        name: 'commerce_search_log',
        help:
          'The search log: rows buffered for the next write (buffered_rows), and since the process started the searches ' +
          'dropped because the buffer was full while the database was slow (dropped_searches) or lost to a failed write (failed_searches).',
        labelNames: ['count'] as const,
        registers: [this.registry],
        collect() {
          const counts = searchLog();
          this.set({ count: 'buffered_rows' }, counts.buffered);
          this.set({ count: 'dropped_searches' }, counts.dropped);
          this.set({ count: 'failed_searches' }, counts.failed);
        },
      });
    }
    if (replicas) {
      new Gauge({
        name: 'commerce_db_replica_lag_seconds',
        help: 'How far each read replica was behind the primary at its last check (the age of the oldest primary WAL position it had not replayed).',
        labelNames: ['replica'] as const,
        registers: [this.registry],
        collect() {
          for (const replica of replicas.status())
            if (replica.lagSeconds !== undefined) this.set({ replica: replica.name }, replica.lagSeconds);
        },
      });
      new Gauge({
        name: 'commerce_db_replica_in_rotation',
        help: 'Whether each read replica serves reads (1) or is out of rotation (0: failed, or lagging beyond DATABASE_REPLICA_MAX_LAG_MS).',
        labelNames: ['replica'] as const,
        registers: [this.registry],
        collect() {
          for (const replica of replicas.status()) this.set({ replica: replica.name }, replica.inRotation ? 1 : 0);
        },
      });
    }
    if (pool) {
      new Gauge({
        name: 'commerce_db_pool_connections',
        help: 'Database pool connections, by state (in_use, idle) and requests waiting for one (waiting).',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const current = pool();
          if (!current) return;
          this.set({ state: 'in_use' }, current.totalCount - current.idleCount);
          this.set({ state: 'idle' }, current.idleCount);
          this.set({ state: 'waiting' }, current.waitingCount);
        },
      });
    }
    if (caches) {
      const indexes = { products: caches.productIndexes, suggest: caches.suggestIndexes };
      const perIndex = (pick: (indexes: ProcessCaches['productIndexes']) => number) =>
        function (this: Gauge<'index'>) {
          for (const [name, index] of Object.entries(indexes)) this.set({ index: name }, pick(index));
        };
      const indexGauges = [
        [
          'bytes',
          "What the process's in-process indexes of every project take together, by their estimates, by index.",
        ],
        ['builds', 'In-process index builds started since the process started, by index.'],
        [
          'patches',
          "Writes' changed rows applied to an in-process index instead of a rebuild since the process started, by index.",
        ],
        [
          'refusals',
          "Index builds that gave no index because it would exceed its project's bound (the project's reads run their statements), by index.",
        ],
      ] as const;
      for (const [figure, help] of indexGauges)
        new Gauge({
          name: `commerce_index_${figure}`,
          help,
          labelNames: ['index'] as const,
          registers: [this.registry],
          collect: perIndex((index) => index[figure]),
        });
      const perCache = (pick: (name: (typeof CACHE_NAMES)[number]) => number) =>
        function (this: Gauge<'cache'>) {
          for (const name of CACHE_NAMES) this.set({ cache: name }, pick(name));
        };
      new Gauge({
        name: 'commerce_cache_hits',
        help: 'Answers served from a process cache since the start, by cache.',
        labelNames: ['cache'] as const,
        registers: [this.registry],
        collect: perCache((name) => caches[name].hits),
      });
      new Gauge({
        name: 'commerce_cache_misses',
        help: 'Answers a process cache had to compute since the start, by cache.',
        labelNames: ['cache'] as const,
        registers: [this.registry],
        collect: perCache((name) => caches[name].misses),
      });
    }
    if (queues) {
      new Gauge({
        name: 'commerce_job_queue_jobs',
        help: 'pg-boss jobs by queue and state (ready, deferred, active, failed: failed jobs still retained).',
        labelNames: ['queue', 'state'] as const,
        registers: [this.registry],
        async collect() {
          // While the database does not answer, the other series still show (this one keeps its last values).
          const depths = await queues().catch(() => []);
          for (const queue of depths) {
            this.set({ queue: queue.name, state: 'ready' }, queue.ready);
            this.set({ queue: queue.name, state: 'deferred' }, queue.deferred);
            this.set({ queue: queue.name, state: 'active' }, queue.active);
            this.set({ queue: queue.name, state: 'failed' }, queue.failed);
          }
        },
      });
    }
  }

  /** Gauges of the queues' health, read in one go per scrape (the first gauge collected reads, the others reuse it). */
  private queueHealthGauges(read: () => Promise<QueueHealth>): void {
    let reading: Promise<QueueHealth | undefined> | undefined;
    // One read per scrape: the first gauge starts it, the rest of the same scrape (same tick) share it.
    const current = () => {
      reading ??= read().catch(() => undefined);
      const shared = reading;
      setImmediate(() => (reading = undefined));
      return shared;
    };
    new Gauge({
      name: 'commerce_job_queue_oldest_pending_seconds',
      help: 'Per queue, the age of its oldest job that is due and not yet taken by a worker (0 when none waits).',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        const health = await current();
        if (!health) return; // the database does not answer: the last values stay
        this.reset();
        for (const { queue, seconds } of health.oldestPendingSeconds) this.set({ queue }, seconds);
      },
    });
    new Gauge({
      name: 'commerce_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting for their first or next attempt, in every project.',
      registers: [this.registry],
      async collect() {
        const health = await current();
        if (health) this.set(health.deliveriesPending);
      },
    });
    new Gauge({
      name: 'commerce_job_worker_heartbeat_age_seconds',
      help:
        'Seconds since any job worker last ran the heartbeat job (sent by each working process every 5 s); ' +
        '/readyz?scope=jobs is red past JOBS_STALE_SECONDS. Absent until a worker ran one.',
      registers: [this.registry],
      async collect() {
        const health = await current();
        if (health?.secondsSinceHeartbeat !== undefined) this.set(health.secondsSinceHeartbeat);
      },
    });
  }

  /** Counts one answered request (and a 429's refusal by its error code). */
  observeRequest(operation: string, status: number, seconds: number, errorCode?: string): void {
    this.requests.inc({ operation, status: String(status) });
    this.latency.observe({ operation }, seconds);
    if (status === 429 && errorCode) this.refusals.inc({ code: errorCode });
  }

  /** Counts one request of an operation that may read from a replica, by where it read and why. */
  observeRoutedRead(target: string, reason: 'replica' | 'written' | 'no_replica' | 'failover' | 'token'): void {
    this.routedReads.inc({ target, reason });
  }

  /** Counts one webhook delivery attempt and its duration. */
  observeWebhookAttempt(ok: boolean, milliseconds: number): void {
    this.webhookAttempts.inc({ outcome: ok ? 'success' : 'failure' });
    this.webhookLatency.observe(milliseconds / 1000);
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  async exposition(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/**
 * Serves `GET /metrics` (no token: for a private network) on a port of its own and resolves once it listens,
 * with the probes beside it: `GET /healthz` (200 while the process runs) and `GET /readyz` (200 when `unready`
 * finds nothing, else 503 with the reason; the same bodies as the API's probes; `?scope=jobs` also asks whether
 * job workers run jobs). Every other request answers
 * 404. Rejects with the listen error.
 */
export async function serveMetrics(
  metrics: Metrics,
  port: number,
  host: string,
  unready: (scope?: 'jobs') => Promise<string | undefined>,
): Promise<Server> {
  const json = (response: ServerResponse, status: number, body: object) =>
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((request, response) => {
    const [path, query] = (request.url ?? '').split('?');
    if (request.method === 'GET' && path === '/healthz') return json(response, 200, { status: 'ok' });
    if (request.method === 'GET' && path === '/readyz') {
      const scope = new URLSearchParams(query).get('scope') === 'jobs' ? 'jobs' : undefined;
      unready(scope).then(
        (reason) =>
          reason ? json(response, 503, { status: 'unavailable', reason }) : json(response, 200, { status: 'ready' }),
        () => json(response, 503, { status: 'unavailable', reason: 'The database does not answer.' }),
      );
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found.\n');
      return;
    }
    metrics.exposition().then(
      ({ text, contentType }) => response.writeHead(200, { 'Content-Type': contentType }).end(text),
      () => response.writeHead(500, { 'Content-Type': 'text/plain' }).end('The metrics could not be read.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
