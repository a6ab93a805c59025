/**
 * Process entry: database (DATABASE_URL or the embedded PostgreSQL in DATA_DIR), migrations, the process's
 * parts (src/process.ts: pool, change feed and caches, pg-boss, the HTTP server), the demo project on first
 * start; stops all of it on SIGINT/SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import { isApiWorker, startApiWorkers, webConcurrency, type ApiWorkers } from './cluster.js';
import { loadConfig, type Config } from './config.js';
import {
  DataDirInUseError,
  PostgresStartError,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from './db/embedded-postgres.js';
import { migrate } from './db/migrate.js';
import { withSessionLock } from './db/session-lock.js';
import { DatabaseStartupError, waitForDatabase } from './db/wait-for-database.js';
import { goesThroughPooler, POOLED_WITHOUT_DIRECT_URL } from './db/pooler.js';
import { developmentPlatformToken, ensureDemoProject, servedDemoProject } from './demo.js';
import { startProcess } from './process.js';
import { createLogger } from './shared/logger.js';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(`Not starting: ${(error as Error).message}`);
  process.exit(1);
}
// Any constant: the same in every process creating the demo project in this database.
const DEMO_PROJECT_LOCK = 72707370;
const log = createLogger(config.logLevel);
// WEB_CONCURRENCY above 1: this process owns the database, migrations, demo data and jobs, and forks that many
// API processes sharing the port (src/cluster.ts); each of them runs this script too, as a plain API process.
let apiProcesses = 1;
try {
  apiProcesses = isApiWorker() ? 1 : webConcurrency(process.env.WEB_CONCURRENCY);
} catch (error) {
  console.error(`Not starting: ${(error as Error).message}`);
  process.exit(1);
}
const clustered = apiProcesses > 1;
let workers: ApiWorkers | undefined;
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
      // Out of the terminal's process group: Ctrl-C reaches this process only, which drains, then stops it.
      ownSession: true,
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
// Migrations and their advisory lock need a session of their own: the direct URL beside a pooled DATABASE_URL.
const directUrl = config.databaseDirectUrl ?? databaseUrl;
try {
  await waitForDatabase(directUrl, config.databaseWaitSeconds, (message) => console.error(message));
} catch (error) {
  if (!(error instanceof DatabaseStartupError)) throw error;
  await refuseToStart([error.message]);
}
// A pooled DATABASE_URL alone would start and serve stale caches: its change feed cannot LISTEN through the pooler.
if (config.databaseUrl && !config.databaseDirectUrl && (await goesThroughPooler(databaseUrl)))
  await refuseToStart(POOLED_WITHOUT_DIRECT_URL);
const applied = await migrate(directUrl);
if (applied.length > 0) log.info('applied migrations', { applied });

// METRICS_PORT as configured (startProcess replaces 0 with the port the kernel picked).
const metricsBasePort = config.metricsPort;
// The embedded PostgreSQL this process started is one of its parts: stopped last, after the pool closed.
const running = await startProcess({
  databaseUrl,
  directUrl,
  // Clustered, this process serves no requests: it runs the jobs (RUN_JOBS) for all of them.
  config,
  log,
  database: embedded ? { name: 'embedded PostgreSQL', stop: embedded.stop } : undefined,
});
// A production start never serves the demo project an earlier development start made (its keys were printed).
const servedDemo = config.production ? await servedDemoProject(running.deps.db) : undefined;
if (servedDemo) {
  await running.stop().catch(() => {});
  await refuseToStart([
    `NODE_ENV=production, and this database serves the demo project ${servedDemo}, whose keys were printed when it was made.`,
    `Suspend it first (PATCH /platform/v1/projects/${servedDemo} with {"suspended": true}), or start without NODE_ENV=production.`,
  ]);
}
// Processes starting together on an empty database create one demo project: the first, while the others wait.
// Only in development (the embedded database, or DEMO_PROJECT=true): a production database gets no demo data.
const demo = !config.demoProject
  ? undefined
  : await withSessionLock(directUrl, DEMO_PROJECT_LOCK, () =>
      ensureDemoProject(running.deps, generatedPlatformToken),
    ).catch(async (error: unknown) => {
      await running.stop().catch(() => {}); // a start that fails leaves nothing running (failures are logged)
      throw error;
    });

let stopping = false;
/** Stops everything this process started (src/process.ts, in reverse order) and exits (1 when a step failed, else `exitCode`). */
async function stop(signal: string, exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // The API processes first (each finishes its open requests), then this process's own parts.
  await workers?.stop();
  // Each failed step is logged by running.stop(); the process still ends.
  const failed = await running.stop().then(
    () => false,
    () => true,
  );
  log.info(stoppedLine);
  await log.flush();
  process.exit(failed ? 1 : exitCode);
}
const stoppedLine = embedded ? 'stopped (the embedded PostgreSQL too)' : 'stopped';
let stoppingNow = false;
/**
 * A second signal while stopping: open requests are cut and running jobs not waited for, but the embedded
 * PostgreSQL this process started is still stopped (never left running), said in the last line; then it exits.
 */
async function stopNow(signal: string): Promise<void> {
  if (stoppingNow) return;
  stoppingNow = true;
  log.warn('stopping now: open requests cut, running jobs not waited for', { signal });
  workers?.stopNow();
  running.server?.closeAllConnections();
  const failed = await (embedded?.stop() ?? Promise.resolve()).then(
    () => false,
    (error: unknown) => {
      log.error('stopping: embedded PostgreSQL failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      return true;
    },
  );
  log.info(stoppedLine);
  await log.flush();
  process.exit(failed ? 1 : 0);
}
// One Ctrl-C under `npm start` arrives twice: from the terminal (npm and this process share its foreground
// group) and forwarded by npm a moment later. A signal this soon after the first is that same key press.
const SAME_SIGNAL_MS = 500;
let firstSignalAt = 0;
/** The first SIGINT/SIGTERM stops in order; another one while that runs (not the first one's echo) stops now. */
function onSignal(signal: NodeJS.Signals): void {
  if (!stopping) {
    firstSignalAt = Date.now();
    void stop(signal);
  } else if (Date.now() - firstSignalAt >= SAME_SIGNAL_MS) void stopNow(signal);
}
// embedded-postgres registers async-exit-hook on import, which exits with 128+signal while we are still
// draining; this process stops PostgreSQL itself, so it takes the signals over, before it listens: a Ctrl-C
// sent as soon as the address is printed is already ours.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
// An API process of a clustered start stops when its parent says so (SIGTERM): a terminal's Ctrl-C reaches
// the whole process group, and the parent stops its API processes before its own parts.
process.on('SIGINT', isApiWorker() ? () => {} : onSignal);
process.on('SIGTERM', onSignal);
try {
  if (clustered) {
    // The port as configured: a replacement process joins the shared listener the first ones made (PORT=0 included).
    const apiPort = String(config.port);
    workers = await startApiWorkers(
      apiProcesses,
      (slot) => ({
        DATABASE_URL: databaseUrl,
        ...(config.platformToken && { PLATFORM_TOKEN: config.platformToken }),
        RUN_JOBS: 'false',
        // METRICS_PORT is this process's (its jobs and pools); API process n serves its own on METRICS_PORT + n, so
        // every process's metrics are on the private ports, never only on the public one (METRICS_PORT=0: none).
        METRICS_PORT: metricsBasePort ? String(metricsBasePort + slot) : '',
        WEB_CONCURRENCY: '1',
        PORT: apiPort,
      }),
      log,
    );
    config.port = workers.port;
  } else {
    await running.listen(config.port, config.host);
  }
} catch (error) {
  const listenError = error as NodeJS.ErrnoException;
  // Everything started so far (the embedded PostgreSQL included) is stopped again, not left running.
  console.error(
    listenError.code === 'EADDRINUSE'
      ? `Not starting: ${config.host}:${config.port} is in use by another program. Set PORT to a free port (PORT=0 lets the system pick one).`
      : `Not starting: cannot listen on ${config.host}:${config.port} (${listenError.message}).`,
  );
  await stop('listen failed', 1);
}
// With PORT=0 the kernel picked the port; running.listen set config.port to it (customer tokens carry it as iss).
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
if (clustered) lines.splice(1, 0, `  ${apiProcesses} API processes (WEB_CONCURRENCY), jobs in this one`);
// An API process of a clustered start prints nothing: its parent printed the address once.
if (!isApiWorker()) console.log(lines.join('\n'));
