import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Logger } from './shared/logger.js';
import type { AuthCache } from './modules/platform/auth-cache.js';
import type { JobQueue } from './jobs/queue.js';
import type { OutboundAgent } from './shared/outbound.js';

/** What handlers and services need from the running process; passed explicitly, no container. */
export interface AppDeps {
  db: Database;
  config: Config;
  log: Logger;
  /** pg-boss: sends jobs (inside transactions) and, when RUN_JOBS, runs their workers. */
  jobs: JobQueue;
  /** Cached API keys; absent means every request reads the key from the database. */
  authCache?: AuthCache;
  /** The outbound HTTPS pool for webhooks and callbacks; absent means the process-wide one (tests pass one trusting their CA). */
  outbound?: OutboundAgent;
}
