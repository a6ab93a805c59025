import type { Writable } from 'node:stream';
import type { AppDeps } from '../../src/app-deps.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Handlers } from '../../src/shared/contract.js';
import { createCommerceClient, type CommerceClient } from '@commerce-api/sdk';
import { createLogger } from '../../src/shared/logger.js';
import { startProcess } from '../../src/process.js';
import { createTestDatabase, directUrlOf } from './database.js';

export const TEST_PLATFORM_TOKEN = 'test-platform-token-0123456789abcdef';
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789abcdef';

export interface TestApp {
  baseUrl: string;
  deps: AppDeps;
  /** SDK client authenticated with the platform token. */
  platform: CommerceClient;
  /** SDK client with the given key (or none). */
  client: (apiKey?: string) => CommerceClient;
  close: () => Promise<void>;
}

/**
 * The real app on a free port over its own fresh database (cloned from the migrated template), with
 * every response checked against openapi.yaml.
 */
export async function startTestApp(
  options: {
    config?: Partial<Config>;
    handlers?: Partial<Handlers>;
    /** Share another app's database (a second process). */
    databaseUrl?: string;
    /**
     * Connections in the app's pool (5 by default). A test that sends more concurrent requests than the pool holds
     * and asserts every answer gives it one per request: queued behind a small pool on a loaded machine, a request
     * waits past the product's 5 s bound for a connection and answers 503.
     */
    poolSize?: number;
    /** Clone this template database instead of the migrated one (the demo project's, from tests/setup/demo.ts). */
    template?: string;
    /** Where the app's log lines go (stderr by default). */
    logTo?: Writable;
    /** Process parts to use instead of the defaults (an outbound pool trusting a test CA, a logger that records). */
    deps?: Partial<Pick<AppDeps, 'outbound' | 'carrierGateway' | 'log'>>;
  } = {},
): Promise<TestApp> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, directUrl: directUrlOf(options.databaseUrl), drop: async () => {} }
    : await createTestDatabase(options.template);
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    // Behind PgBouncer (TEST_PGBOUNCER=1) the sessions use the direct URL, as DATABASE_DIRECT_URL does.
    databaseDirectUrl: database.directUrl === database.url ? undefined : database.directUrl,
    platformToken: TEST_PLATFORM_TOKEN,
    metricsToken: TEST_METRICS_TOKEN,
    responseCheck: true,
    runJobs: false,
    // Silent unless TEST_APP_LOG_LEVEL says otherwise (e.g. `warn`: why an app answered 503 or 500).
    logLevel: (process.env.TEST_APP_LOG_LEVEL as Config['logLevel'] | undefined) ?? 'silent',
    ...options.config,
  };
  const { log = createLogger(config.logLevel, options.logTo), ...overrides } = options.deps ?? {};
  // The process as production wires it (src/process.ts): the same cached authentication and caches, so tests see
  // what a deployment would; with RUN_JOBS off (the default here) a sending-only job queue, tests run job handlers
  // themselves. The app's own copy of the database is dropped last.
  const running = await startProcess({
    databaseUrl: database.url,
    directUrl: config.databaseDirectUrl,
    config,
    log,
    poolSize: options.poolSize ?? 5,
    database: options.databaseUrl ? undefined : { name: 'test database', stop: database.drop },
    overrides,
  });
  const { handlers: allHandlers } = await import('../../src/http/handlers.js');
  await running.listen(0, '127.0.0.1', { ...allHandlers, ...options.handlers });
  const baseUrl = `http://127.0.0.1:${config.port}`;
  return {
    baseUrl,
    deps: running.deps,
    platform: createCommerceClient({ baseUrl, apiKey: TEST_PLATFORM_TOKEN }),
    client: (apiKey) => createCommerceClient({ baseUrl, apiKey }),
    close: async () => {
      running.server?.closeAllConnections(); // requests still open are cut, not waited for
      await running.stop();
    },
  };
}

/**
 * The URL for what needs a session of its own (LISTEN, pg-boss): the app's direct URL behind PgBouncer
 * (TEST_PGBOUNCER=1), else its DATABASE_URL, as src/process.ts chooses.
 */
export const sessionUrlOf = (app: { deps: AppDeps }): string =>
  app.deps.config.databaseDirectUrl ?? app.deps.config.databaseUrl!;
