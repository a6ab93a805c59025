import type { Server } from 'node:http';
import type { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from '../../src/app-deps.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDatabase } from '../../src/db/client.js';
import { createApp } from '../../src/http/app.js';
import { answerClientErrors } from '../../src/http/client-errors.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { RateLimiter } from '../../src/modules/usage/index.js';
import type { Handlers } from '../../src/http/contract.js';
import { createCommerceClient, type CommerceClient } from '@commerce-api/sdk';
import { AuthCache } from '../../src/modules/platform/auth-cache.js';
import { ListTotals } from '../../src/shared/list-totals.js';
import { flushSearchLog } from '../../src/modules/search/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { createTestDatabase } from './database.js';

export const TEST_PLATFORM_TOKEN = 'test-platform-token-0123456789abcdef';

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
    /** Where the app's log lines go (stderr by default). */
    logTo?: Writable;
    /** Process parts to use instead of the defaults (an outbound pool trusting a test CA, a logger that records). */
    deps?: Partial<Pick<AppDeps, 'outbound' | 'carrierGateway' | 'log'>>;
  } = {},
): Promise<TestApp> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase();
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    platformToken: TEST_PLATFORM_TOKEN,
    responseCheck: true,
    runJobs: false,
    logLevel: 'silent',
    ...options.config,
  };
  const log = createLogger(config.logLevel, options.logTo);
  // The same cached authentication as production, so tests see what a deployment would.
  const authCache = new AuthCache(database.url, log);
  const totals = new ListTotals(authCache.feed);
  await authCache.start();
  // A sending-only job queue, as in a process with RUN_JOBS=false: tests run job handlers themselves.
  const jobs = await JobQueue.start(database.url, log, { work: false });
  const db = createDatabase(database.url, 5);
  const deps: AppDeps = { db, config, log, authCache, totals, jobs, rateLimiter: new RateLimiter(db), ...options.deps };
  const { handlers: allHandlers } = await import('../../src/http/handlers.js');
  const server: Server = answerClientErrors(
    createApp(deps, { ...allHandlers, ...options.handlers }).listen(0, '127.0.0.1'),
  );
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.port = (server.address() as AddressInfo).port; // as main.ts does: the address customer tokens name as iss
  return {
    baseUrl,
    deps,
    platform: createCommerceClient({ baseUrl, apiKey: TEST_PLATFORM_TOKEN }),
    client: (apiKey) => createCommerceClient({ baseUrl, apiKey }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await authCache.close();
      await jobs.stop();
      await flushSearchLog();
      await deps.db.$disconnect();
      await database.drop();
    },
  };
}
