/**
 * One process's parts, wired in one place for `main.ts`, the tests' app and the benchmarks: started in
 * dependency order and stopped in exactly the reverse order.
 *
 *   start: [the database, when the caller owns it] → database pool → [read replicas] → change feed (API keys, table-version
 *          caches) → search log → job queue (sending; working too with RUN_JOBS) → rate limiter → [metrics
 *          server, with METRICS_PORT] → HTTP server
 *
 * The change feed (LISTEN) and pg-boss need a session: they use the direct URL when there is one (DATABASE_URL
 * through a transaction-mode pooler, DATABASE_DIRECT_URL beside it); the request pool uses DATABASE_URL.
 *   stop:  HTTP server → [metrics server] → job queue → search log → change feed → [read replicas] → database pool
 *          → [the database]
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { types } from 'node:util';
import type { AppDeps } from './app-deps.js';
import type { Config } from './config.js';
import { createDatabase, DEFAULT_POOL_SIZE, poolOf } from './db/client.js';
import { ReplicaSet } from './db/replicas.js';
import { unreadyReason } from './db/readiness.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import type { Handlers } from './shared/contract.js';
import { jobsUnreadyReason, queueHealth } from './jobs/health.js';
import { PROCESS_NAME } from './jobs/heartbeat.job.js';
import { JobQueue } from './jobs/queue.js';
import { AuthCache } from './modules/platform/index.js';
import { flushSearchLog, searchLogCounts } from './modules/search/index.js';
import { RateLimiter } from './modules/usage/index.js';
import { paymentSlotsFor } from './modules/payments/index.js';
import type { Logger } from './shared/logger.js';
import { Metrics, serveMetrics } from './shared/metrics.js';
import { createProcessCaches, indexLimitsOf } from './shared/table-version-cache.js';
import { changeOf, TABLE_CHANGED } from './shared/table-versions.js';

export interface ProcessOptions {
  /** The database every part connects to (DATABASE_URL, or the embedded PostgreSQL's). */
  databaseUrl: string;
  /**
   * A session connection to the same database when `databaseUrl` goes through a transaction-mode pooler
   * (DATABASE_DIRECT_URL): the change feed's LISTEN and pg-boss use it, and the request pool then runs no named
   * prepared statements. Absent: `databaseUrl` is direct and used for everything.
   */
  directUrl?: string;
  config: Config;
  log: Logger;
  /** Connections in the database pool (the client's default when absent). */
  poolSize?: number;
  /** The database itself when this process owns it (the embedded PostgreSQL, a test's copy): stopped after everything else. */
  database?: { name: string; stop: () => Promise<unknown> };
  /** Parts to use instead of the process-wide ones (tests: an outbound pool trusting their CA). */
  overrides?: Partial<Pick<AppDeps, 'outbound' | 'carrierGateway'>>;
}

export interface RunningProcess {
  /** What handlers, services and jobs get from this process. */
  readonly deps: AppDeps;
  /** The HTTP server, once `listen` has resolved. */
  readonly server: Server | undefined;
  /**
   * Serves the app on `host:port` (with `handlers` instead of the areas' own, for tests) and resolves once it
   * listens; `config.port` becomes the port listened on (the kernel picks one for 0). Rejects with the listen
   * error (EADDRINUSE, ...), the process otherwise unchanged.
   */
  listen: (port: number, host: string, handlers?: Handlers) => Promise<Server>;
  /**
   * Stops every part in the reverse order of their start. Every step runs even when one before it failed (a
   * stop during a database outage still ends); each failure is logged as `stopping: <part> failed`, and the
   * returned promise then rejects with all of them. Calling it again returns the same promise.
   */
  stop: () => Promise<void>;
}

/** A part that was started, with how to stop it. */
interface Part {
  name: string;
  stop: () => Promise<unknown>;
}

/** Every part in order, or, when one fails to start, the ones started before it stopped again and the error rethrown. */
export async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  const { databaseUrl, config, log } = options;
  const directUrl = options.directUrl ?? databaseUrl;
  const parts: Part[] = [];
  if (options.database) parts.push(options.database);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopParts(parts, log));
  try {
    const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
    const db = createDatabase(databaseUrl, poolSize, { namedStatements: directUrl === databaseUrl });
    parts.push({ name: 'database pool', stop: () => db.$disconnect() });
    const replicas =
      config.databaseReplicaUrls.length > 0
        ? new ReplicaSet(db, config.databaseReplicaUrls, {
            maxLagMs: config.databaseReplicaMaxLagMs,
            poolSize: options.poolSize,
            onUnavailable: (name) => log.warn('read replica out of rotation: it does not answer', { replica: name }),
          })
        : undefined;
    if (replicas) {
      await replicas.start();
      parts.push({ name: 'read replicas', stop: () => replicas.stop() });
    }
    // The caches register on the auth cache's change feed before it connects, so they hear every notification.
    const authCache = new AuthCache(directUrl, log);
    const caches = createProcessCaches(
      authCache.feed,
      (error) =>
        log.warn('index build failed; searches and suggestions read from the database meanwhile', {
          error: (error as Error).message,
        }),
      indexLimitsOf(config.indexMegabytes),
    );
    if (replicas) authCache.feed.on(TABLE_CHANGED, (payload) => replicas.changed(changeOf(payload).projectId));
    await authCache.start();
    parts.push({ name: 'change feed', stop: () => authCache.close() });
    // Buffered search analytics: written once requests and workers have stopped, before the pool closes.
    parts.push({ name: 'search log', stop: () => flushSearchLog() });
    // The metrics exist before the job workers start, which count their webhook attempts; the queue depths are read
    // once the queue has started (a scrape before that sees none).
    const queue: { started?: JobQueue } = {};
    const metrics = new Metrics({
      pool: () => poolOf(db),
      caches,
      replicas,
      queues: async () => (await queue.started?.queueDepths()) ?? [],
      queueHealth: () => queueHealth(db),
      processName: PROCESS_NAME,
      searchLog: searchLogCounts,
    });
    const base = { db, config, log, authCache, caches, metrics, replicas, ...options.overrides };
    // Every process sends jobs (inside its transactions); only RUN_JOBS processes work them.
    const jobs = await JobQueue.start(directUrl, log, config.runJobs ? { work: true, deps: base } : { work: false });
    queue.started = jobs;
    parts.push({ name: 'jobs', stop: () => jobs.stop() });
    const deps: AppDeps = {
      ...base,
      jobs,
      rateLimiter: config.rateLimits ? new RateLimiter(db) : undefined,
      paymentSlots: paymentSlotsFor(poolSize),
    };
    if (config.metricsPort !== undefined) {
      const unready = async (scope?: 'jobs') =>
        (await unreadyReason(db)) ?? (scope === 'jobs' ? jobsUnreadyReason(db, config.jobsStaleSeconds) : undefined);
      const metricsServer = await serveMetrics(metrics, config.metricsPort, config.host, unready);
      // METRICS_PORT=0: the port the kernel picked, for whoever prints or scrapes it.
      config.metricsPort = (metricsServer.address() as AddressInfo).port;
      parts.push({ name: 'metrics server', stop: () => new Promise((resolve) => metricsServer.close(resolve)) });
    }

    let server: Server | undefined;
    const listen = async (port: number, host: string, handlers?: Handlers): Promise<Server> => {
      const listening = answerClientErrors(createApp(deps, handlers).listen(port, host));
      const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        listening.once('listening', () => resolve(undefined));
        listening.once('error', resolve);
      });
      if (error) throw error;
      server = listening;
      parts.push({ name: 'HTTP server', stop: () => new Promise((resolve) => listening.close(resolve)) });
      // Customer tokens carry the address the process reports as iss: the port it really listens on.
      config.port = (listening.address() as AddressInfo).port;
      return listening;
    };
    return {
      deps,
      get server() {
        return server;
      },
      listen,
      stop,
    };
  } catch (error) {
    await stop().catch(() => {}); // each failure is logged; the start's own error is the one to report
    throw error;
  }
}

/** Stops `parts` newest first, each even when one before it failed; rejects with every failure at the end. */
async function stopParts(parts: Part[], log: Logger): Promise<void> {
  const failures: unknown[] = [];
  for (const part of parts.splice(0).reverse()) {
    try {
      await part.stop();
    } catch (error) {
      failures.push(error);
      log.error(`stopping: ${part.name} failed`, { error: types.isNativeError(error) ? error.message : String(error) });
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, 'stopping the process failed');
}
