/**
 * `npm run worker`: a process that works the job queues and serves no API (pg-boss queues and schedules, the
 * purges, webhook deliveries, e-mail), for deployments that run their API processes with RUN_JOBS=false.
 * It needs DATABASE_URL (the embedded PostgreSQL belongs to `npm start`), applies pending migrations like every
 * start does (processes starting together apply each once), and with METRICS_PORT serves `/metrics`,
 * `/healthz` and `/readyz` on that port. The first SIGINT/SIGTERM stops it in order (running jobs finish, up to
 * 10 s); a second one exits at once.
 */
import { loadConfig, type Config } from './config.js';
import { migrate } from './db/migrate.js';
import { goesThroughPooler, POOLED_WITHOUT_DIRECT_URL } from './db/pooler.js';
import { DatabaseStartupError, waitForDatabase } from './db/wait-for-database.js';
import { startProcess } from './process.js';
import { createLogger } from './shared/logger.js';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(`Not starting: ${(error as Error).message}`);
  process.exit(1);
}
const log = createLogger(config.logLevel);
const databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  console.error(
    'Not starting: set DATABASE_URL. The job worker joins a PostgreSQL that the API processes use; ' +
      '`npm start` alone runs the jobs itself (RUN_JOBS defaults to true).',
  );
  process.exit(1);
}
try {
  await waitForDatabase(config.databaseDirectUrl ?? databaseUrl, config.databaseWaitSeconds, (message) =>
    console.error(message),
  );
} catch (error) {
  if (!(error instanceof DatabaseStartupError)) throw error;
  console.error(`Not starting: ${error.message}`);
  process.exit(1);
}
if (!config.databaseDirectUrl && (await goesThroughPooler(databaseUrl))) {
  console.error(`Not starting: ${POOLED_WITHOUT_DIRECT_URL.join('\n  ')}`);
  process.exit(1);
}
const applied = await migrate(config.databaseDirectUrl ?? databaseUrl);
if (applied.length > 0) log.info('applied migrations', { applied });

// This process exists to work the jobs, whatever RUN_JOBS says (the API processes beside it set it to false).
config.runJobs = true;
const running = await startProcess({ databaseUrl, directUrl: config.databaseDirectUrl, config, log });

let stopping = false;
/** The first signal stops every part in order and exits (1 when a step failed); a second one exits at once. */
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    log.warn('stopping now: running jobs not waited for', { signal });
    void log.flush().finally(() => process.exit(1));
    return;
  }
  stopping = true;
  log.info('stopping', { signal });
  void running
    .stop()
    .then(
      () => 0,
      () => 1,
    )
    .then(async (code) => {
      log.info('stopped');
      await log.flush();
      process.exit(code);
    });
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

console.log(
  [
    `Commerce API job worker running (pid ${process.pid}): queues, schedules, webhook deliveries, e-mail`,
    config.metricsPort !== undefined
      ? `  /metrics, /healthz and /readyz on http://${config.host}:${config.metricsPort}`
      : '  no HTTP port (set METRICS_PORT for /metrics, /healthz and /readyz)',
  ].join('\n'),
);
