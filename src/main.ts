/**
 * Process entry: database (DATABASE_URL or the embedded PostgreSQL in DATA_DIR), migrations, the demo
 * project on first start, pg-boss workers, the HTTP server; stops all of it on SIGINT/SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { loadConfig } from './config.js';
import { createDatabase } from './db/client.js';
import {
  DataDirInUseError,
  PostgresStartError,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from './db/embedded-postgres.js';
import { migrate } from './db/migrate.js';
import { DatabaseStartupError, waitForDatabase } from './db/wait-for-database.js';
import { developmentPlatformToken, ensureDemoProject } from './demo.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import { JobQueue } from './jobs/queue.js';
import { RateLimiter } from './modules/usage/index.js';
import { AuthCache } from './modules/platform/index.js';
import { ListTotals } from './shared/list-totals.js';
import { flushSearchLog } from './modules/search/index.js';
import { createLogger } from './shared/logger.js';

const config = loadConfig();
const log = createLogger(config.logLevel);
mkdirSync(config.dataDir, { recursive: true });

let embedded: EmbeddedDatabase | undefined;
let generatedPlatformToken: string | undefined;
/** Before the server runs: says why in `Not starting: ...` lines (no stack), stops the embedded PostgreSQL if this process started it, exits 1. */
async function refuseToStart(lines: string[]): Promise<never> {
  console.error(`Not starting: ${lines.join('\n  ')}`);
  await embedded?.stop().catch(() => {});
  process.exit(1);
}
if (!config.databaseUrl) {
  try {
    // A running server's database is never shared or stopped by a second `npm start` (npm run seed may use it).
    embedded = await startEmbeddedPostgres({
      dir: config.dataDir,
      persistent: true,
      whenInUse: 'refuse',
      log: (line) => log.warn(line),
    });
  } catch (error) {
    if (error instanceof PostgresStartError)
      await refuseToStart([
        error.message,
        'Set DATABASE_URL to use another PostgreSQL, or DATA_DIR for a new embedded one.',
      ]);
    if (!(error instanceof DataDirInUseError)) throw error;
    await refuseToStart([
      `DATA_DIR ${error.dir} is in use by the running process ${error.ownerPid}, which started its PostgreSQL` +
        `${error.port ? ` on 127.0.0.1:${error.port}` : ''} and stops it when it stops.`,
      'Stop that process first, or give this one its own DATA_DIR (or a DATABASE_URL).',
      'npm run seed can run alongside it on the same DATA_DIR.',
    ]);
  }
  // Local development on the embedded database gets a platform token; with DATABASE_URL it must be set.
  if (!config.platformToken) config.platformToken = generatedPlatformToken = developmentPlatformToken(config.dataDir);
}
const databaseUrl = config.databaseUrl ?? embedded!.url;
try {
  await waitForDatabase(databaseUrl, config.databaseWaitSeconds, (message) => console.error(message));
} catch (error) {
  if (!(error instanceof DatabaseStartupError)) throw error;
  await refuseToStart([error.message]);
}
const applied = await migrate(databaseUrl);
if (applied.length > 0) log.info('applied migrations', { applied });

const db = createDatabase(databaseUrl);
const authCache = new AuthCache(databaseUrl, log);
// Both caches listen on the auth cache's change feed; they register before it connects.
const totals = new ListTotals(authCache.feed);
await authCache.start();
// Every process can send jobs (inside its transactions); only RUN_JOBS processes work them.
const base = { db, config, log, authCache, totals };
const jobs = await JobQueue.start(databaseUrl, log, config.runJobs ? { work: true, deps: base } : { work: false });
const deps = { ...base, jobs, rateLimiter: config.rateLimits ? new RateLimiter(db) : undefined };
const demo = await ensureDemoProject(deps, generatedPlatformToken);

let stopping = false;
/** Stops everything this process started, in order, and exits (1 when a step failed, else `exitCode`). */
async function stop(signal: string, exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // Each step runs even when one before it failed (a stop during a database outage): the process still ends.
  let failed = false;
  const step = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      failed = true;
      log.error(`stopping: ${name} failed`, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  await step('HTTP server', () => new Promise((resolve) => server.close(resolve)));
  await step('jobs', () => jobs.stop());
  await step('search log', () => flushSearchLog()); // buffered search analytics, before the database closes
  await step('change feed', () => authCache.close());
  await step('database pool', () => db.$disconnect());
  await step('embedded PostgreSQL', async () => embedded?.stop());
  log.info('stopped');
  log.flush();
  process.exit(failed ? 1 : exitCode);
}
const server: Server = answerClientErrors(createApp(deps).listen(config.port, config.host));
const listenError = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
  server.once('listening', () => resolve(undefined));
  server.once('error', resolve);
});
if (listenError) {
  // Everything started so far (the embedded PostgreSQL included) is stopped again, not left running.
  console.error(
    listenError.code === 'EADDRINUSE'
      ? `Not starting: ${config.host}:${config.port} is in use by another program. Set PORT to a free port (PORT=0 lets the system pick one).`
      : `Not starting: cannot listen on ${config.host}:${config.port} (${listenError.message}).`,
  );
  await stop('listen failed', 1);
}
const address = server.address();
// With PORT=0 the kernel picked the port; what the process reports (and customer tokens carry as iss) is that one.
if (typeof address === 'object' && address) config.port = address.port;
const baseUrl = `http://${config.host}:${config.port}`;

const lines = [
  `Commerce API listening on ${baseUrl}`,
  `  API reference: ${baseUrl}/docs   contract: ${baseUrl}/openapi.yaml (also /openapi.json)`,
];
if (demo) {
  lines.push(
    `  demo project ${demo.project_id} (keys saved in ${config.dataDir}/demo.json):`,
    ...Object.entries(demo.keys).map(([name, key]) => `    ${name.padEnd(17)} ${key.token}`),
  );
}
if (demo)
  lines.push(
    `  try: curl -s '${baseUrl}/v1/products?limit=2' -H 'Authorization: Bearer ${demo.keys.secret_test.token}'`,
  );
// Only the development token this process generated is printed; an operator's PLATFORM_TOKEN never reaches the output.
lines.push(
  generatedPlatformToken
    ? `  platform token    ${generatedPlatformToken}`
    : config.platformToken
      ? '  platform API on (token from PLATFORM_TOKEN, not printed)'
      : '  platform API off (set PLATFORM_TOKEN to enable /platform/v1)',
);
console.log(lines.join('\n'));

// embedded-postgres registers async-exit-hook on import, which exits with 128+signal while we are still
// draining; this process stops PostgreSQL itself, so it takes the signals over.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
