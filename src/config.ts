import path from 'node:path';
import { trustedProxyProblem } from './shared/trusted-proxies.js';

export interface Config {
  host: string;
  port: number;
  /** PostgreSQL URL; when absent the embedded PostgreSQL under dataDir is used. */
  databaseUrl?: string;
  /**
   * DATABASE_DIRECT_URL: a session connection to the same database when DATABASE_URL goes through a pooler in
   * transaction mode (PgBouncer): the change feed (LISTEN), pg-boss, migrations and their advisory lock use it,
   * and the pool on DATABASE_URL then runs no named prepared statements. Absent: DATABASE_URL is direct.
   */
  databaseDirectUrl?: string;
  /**
   * DATABASE_REPLICA_URL (comma-separated): streaming replicas of the database for the reads that tolerate lag
   * (src/http/replica-reads.ts lists them; openapi.yaml's description, "Consistency"). Empty: every read on DATABASE_URL.
   */
  databaseReplicaUrls: string[];
  /** DATABASE_REPLICA_MAX_LAG_MS: a replica further behind the primary than this serves no read until it catches up. */
  databaseReplicaMaxLagMs: number;
  /** How long start waits for the database to accept connections before it gives up. */
  databaseWaitSeconds: number;
  dataDir: string;
  /** Operator token for /platform/v1; the platform API answers 404 when absent. */
  platformToken?: string;
  smtpUrl?: string;
  /**
   * STRIPE_API_BASE: where the `stripe` provider's SDK sends its requests (protocol, host and port), for a local
   * stand-in of Stripe's API in tests; absent: api.stripe.com.
   */
  stripeApiBase?: string;
  /** The API's public base URL: the `iss` of customer access tokens, which every process then requires. */
  publicUrl?: string;
  allowPrivateNetworkTargets: boolean;
  /** Validate every response against openapi.yaml (tests; optional in development). */
  responseCheck: boolean;
  /** Run pg-boss workers and cron schedules in this process. */
  runJobs: boolean;
  /** RATE_LIMITS=off: no per-minute limit or monthly quota (only to measure their cost; never in production). */
  rateLimits: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Cache search answers per process, kept exact by the change feed (SEARCH_CACHE=off: every search queries). */
  searchCache: boolean;
  /**
   * Rank suggestions from a per-process index of each project's suggestion inputs, kept exact by the change feed
   * (SUGGEST_INDEX=off: every suggestion list queries).
   */
  suggestIndex: boolean;
  /**
   * Match, rank and count product searches in a per-process index of each project's searchable products, kept
   * exact by the change feed (SEARCH_INDEX=off: every product search runs its statements).
   */
  searchIndex: boolean;
  /**
   * SEARCH_INDEX_CACHES=off: each search first forgets what the product index keeps across answers (compiled
   * tsqueries, kept sets, ranks, impact orders, typo candidates): only to benchmark cold searches, never in production.
   */
  searchIndexCaches: boolean;
  /**
   * Bounds of the in-process indexes in MB (undefined: the defaults of src/shared/table-version-cache.ts): all
   * projects' together (SEARCH_INDEX_MB 128, SUGGEST_INDEX_MB 40) and one project's (SEARCH_INDEX_PROJECT_MB 96,
   * SUGGEST_INDEX_PROJECT_MB 24); a project whose index would exceed its bound is served by the statements.
   */
  indexMegabytes: {
    products?: number;
    productsPerProject?: number;
    suggest?: number;
    suggestPerProject?: number;
  };
  /** SEARCH_LOG=off: searches are not logged (only to measure the log's cost; analytics and suggestions need it). */
  searchLog: boolean;
  /**
   * TRUST_PROXY=<addresses>: the server runs behind load balancers that append the client's address to
   * X-Forwarded-For; only connections from `trustedProxies` have their header believed (src/http/middleware/
   * client-address.ts). Otherwise every client is the connection's address.
   */
  trustProxy: boolean;
  /** TRUST_PROXY's addresses and CIDR ranges; absent with trustProxy (tests' apps): loopback only. */
  trustedProxies?: string[];
  /** NODE_ENV=production: no embedded database, no demo project. */
  production: boolean;
  /**
   * Create the demo project (keys printed and saved in DATA_DIR/demo.json) on a database without projects: always
   * with the embedded database, with DATABASE_URL only when DEMO_PROJECT=true (development against a server).
   */
  demoProject: boolean;
  /** METRICS_TOKEN: `GET /metrics` on the API's port with this bearer token; absent, that path does not exist. */
  metricsToken?: string;
  /**
   * JOBS_STALE_SECONDS: `/readyz?scope=jobs` answers 503 when no job worker has run the heartbeat job (sent every
   * 5 s by each working process) for longer than this (default 30, at least 10).
   */
  jobsStaleSeconds: number;
  /** METRICS_PORT: a port of its own serving `GET /metrics` without a token (for a private network). */
  metricsPort?: number;
}

/** Reads and validates the environment once; throws with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`PORT must be a port number, got "${env.PORT}"`);
  const databaseWaitSeconds = Number(env.DATABASE_WAIT_SECONDS ?? 30);
  if (!Number.isInteger(databaseWaitSeconds) || databaseWaitSeconds < 0)
    problems.push(`DATABASE_WAIT_SECONDS must be a whole number of seconds, got "${env.DATABASE_WAIT_SECONDS}"`);
  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel))
    problems.push(`LOG_LEVEL must be debug, info, warn, error or silent`);
  if (env.PLATFORM_TOKEN !== undefined && env.PLATFORM_TOKEN.length < 16) {
    problems.push('PLATFORM_TOKEN must be at least 16 characters');
  }
  if (env.PUBLIC_URL && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(env.PUBLIC_URL)) {
    problems.push(`PUBLIC_URL must be an http or https URL, got "${env.PUBLIC_URL}"`);
  }
  if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL)
    problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the pooled URL the requests use)');
  if (env.DATABASE_DIRECT_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_DIRECT_URL))
    problems.push('DATABASE_DIRECT_URL must be a postgres:// or postgresql:// URL');
  const replicaUrls = (env.DATABASE_REPLICA_URL ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (replicaUrls.length > 0 && !env.DATABASE_URL)
    problems.push('DATABASE_REPLICA_URL needs DATABASE_URL (the primary the writes go to)');
  for (const url of replicaUrls)
    if (!/^postgres(ql)?:\/\/\S+$/.test(url))
      problems.push('DATABASE_REPLICA_URL must be postgres:// or postgresql:// URLs separated by commas');
  const replicaMaxLagMs = Number(env.DATABASE_REPLICA_MAX_LAG_MS ?? 5_000);
  if (!Number.isInteger(replicaMaxLagMs) || replicaMaxLagMs < 0)
    problems.push(
      `DATABASE_REPLICA_MAX_LAG_MS must be a whole number of milliseconds, got "${env.DATABASE_REPLICA_MAX_LAG_MS}"`,
    );
  if (env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== '' && env.METRICS_TOKEN.length < 16) {
    problems.push('METRICS_TOKEN must be at least 16 characters');
  }
  const metricsPort = env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined;
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535))
    problems.push(`METRICS_PORT must be a port number, got "${env.METRICS_PORT}"`);
  const megabytes = (name: string): number | undefined => {
    if (env[name] === undefined || env[name] === '') return undefined;
    const value = Number(env[name]);
    if (!(value > 0)) problems.push(`${name} must be a positive number of megabytes, got "${env[name]}"`);
    return value;
  };
  const indexMegabytes = {
    products: megabytes('SEARCH_INDEX_MB'),
    productsPerProject: megabytes('SEARCH_INDEX_PROJECT_MB'),
    suggest: megabytes('SUGGEST_INDEX_MB'),
    suggestPerProject: megabytes('SUGGEST_INDEX_PROJECT_MB'),
  };
  const jobsStaleSeconds = Number(env.JOBS_STALE_SECONDS ?? 30);
  if (!Number.isInteger(jobsStaleSeconds) || jobsStaleSeconds < 10)
    problems.push(`JOBS_STALE_SECONDS must be a whole number of seconds, at least 10, got "${env.JOBS_STALE_SECONDS}"`);
  const trustedProxies = trustProxyProblems(env.TRUST_PROXY, problems);
  const production = env.NODE_ENV === 'production';
  if (production && !env.DATABASE_URL)
    problems.push(
      'NODE_ENV=production needs DATABASE_URL: the embedded PostgreSQL and its demo project (keys printed at start) are for development.',
    );
  if (production && env.DEMO_PROJECT === 'true')
    problems.push(
      'NODE_ENV=production with DEMO_PROJECT=true: the demo project is for development; unset DEMO_PROJECT.',
    );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    databaseReplicaUrls: replicaUrls,
    databaseReplicaMaxLagMs: replicaMaxLagMs,
    databaseWaitSeconds,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    platformToken: env.PLATFORM_TOKEN || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    stripeApiBase: env.STRIPE_API_BASE || undefined,
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
    allowPrivateNetworkTargets: env.ALLOW_PRIVATE_NETWORK_TARGETS === 'true',
    responseCheck: env.RESPONSE_CHECK === 'true',
    runJobs: env.RUN_JOBS !== 'false',
    rateLimits: env.RATE_LIMITS !== 'off',
    logLevel,
    searchCache: env.SEARCH_CACHE !== 'off',
    suggestIndex: env.SUGGEST_INDEX !== 'off',
    searchIndex: env.SEARCH_INDEX !== 'off',
    searchIndexCaches: env.SEARCH_INDEX_CACHES !== 'off',
    indexMegabytes,
    searchLog: env.SEARCH_LOG !== 'off',
    trustProxy: trustedProxies.length > 0,
    trustedProxies,
    production,
    demoProject: !env.DATABASE_URL || env.DEMO_PROJECT === 'true',
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort,
    jobsStaleSeconds,
  };
}

/** TRUST_PROXY's entries; `true` or an entry that is not an address or CIDR range adds a problem naming the fix. */
function trustProxyProblems(value: string | undefined, problems: string[]): string[] {
  if (!value || value === 'false') return [];
  if (value === 'true') {
    problems.push(
      'TRUST_PROXY=true would believe an X-Forwarded-For sent by any client. Set TRUST_PROXY to the load ' +
        "balancers' addresses instead (comma-separated IP addresses or CIDR ranges, e.g. TRUST_PROXY=10.0.0.2,10.0.0.3; " +
        'docs/deploy.md, "Environment variables").',
    );
    return [];
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const problem = trustedProxyProblem(entry);
    if (problem) problems.push(`TRUST_PROXY: ${problem}; give the load balancers' IP addresses or CIDR ranges`);
  }
  return entries;
}
