/**
 * `npm run bench:completion-waits`: where draft-order completion's time goes at --connections connections. Runs this
 * checkout's compiled server over an embedded PostgreSQL with pg_stat_statements, completes --completions drafts of
 * two line items (as `npm run bench` does) and meanwhile samples pg_stat_activity every --interval ms: what each of
 * the API's connections is doing (running a statement, waiting on a lock and which, waiting on the WAL flush, or
 * idle in its transaction while the API works), then prints the statements' server time (pg_stat_statements), the
 * WAL fsyncs (pg_stat_io) and the CPU of the API and of PostgreSQL per completion. Extra env for the server:
 * `--env NAME=value` (repeatable), e.g. `--env DATABASE_POOL_SIZE=20`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDatabase } from '../src/db/client.js';
import { CHANGE_FEED_APPLICATION_NAME } from '../src/shared/change-feed.js';
import { migrate } from '../src/db/migrate.js';
import { seedCatalog } from '../src/seed/catalog.seed.js';
import {
  AMOUNT_SAMPLE_MS,
  buildServer,
  clusterCpuMs,
  createBenchProject,
  loadAverage,
  processCpuMs,
  startCompiledServer,
  startThrowawayPostgres,
  stopServer,
} from './kit.js';
import { moreScenarios } from './more-scenarios.js';

const { values } = parseArgs({
  options: {
    completions: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '20' },
    products: { type: 'string', default: '10000' },
    interval: { type: 'string', default: '5' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const log = (line: string) => process.stdout.write(`${line}\n`);
const extraEnv = Object.fromEntries(values.env.map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]));

const cpuMs = (pid: number) => processCpuMs(pid) ?? Number.NaN;

const embedded = await startThrowawayPostgres('completion-waits', {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  track_io_timing: 'on',
  track_wal_io_timing: 'on',
});
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createBenchProject(db, 'Completion Store');
  log(`Seeding ${values.products} products...`);
  await seedCatalog(db, project.id, Number(values.products), { batchSize: 1000 });
  await db.$executeRawUnsafe('VACUUM ANALYZE products, variants, inventory_levels');
  const variantIds = (
    await db.variant.findMany({ where: { projectId: project.id }, select: { id: true }, orderBy: { id: 'asc' } })
  ).map((v) => v.id);
  await db.$disconnect();
  buildServer();
  const server = await startCompiledServer({
    DATABASE_URL: embedded.url,
    PORT: '0',
    RUN_JOBS: 'false',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  });
  const monitor = new pg.Client({ connectionString: embedded.url });
  await monitor.connect();
  monitor.on('error', () => {}); // the cluster's stop ends its session
  try {
    const completion = moreScenarios({
      url: server.url,
      secret: keys.secret_test.token,
      publishable: keys.publishable_test.token,
      variantIds,
      completions: Number(values.completions),
      log,
    }).find((s) => s.name === 'draft-order complete')!;
    const prepared = await completion.prepare();
    await monitor.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await monitor.query(`SELECT pg_stat_statements_reset(), pg_stat_reset_shared('io'), pg_stat_reset_shared('wal')`);
    const postmaster = Number(readFileSync(path.join(embedded.dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const states = new Map<string, number>();
    const lockWaits = new Map<string, number>();
    let samples = 0;
    let running = true;
    const sampling = (async () => {
      while (running) {
        const { rows } = await monitor.query<{
          state: string;
          wait: string | null;
          query: string;
          waiting_for: string | null;
          blocker_query: string | null;
        }>(`
          SELECT a.state, a.wait_event_type || ':' || a.wait_event AS wait,
            left(regexp_replace(a.query, '\\s+', ' ', 'g'), 60) AS query,
            (SELECT l.locktype || coalesce(' ' || l.relation::regclass::text, '') || ' ' || l.mode
               FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted LIMIT 1) AS waiting_for,
            (SELECT left(regexp_replace(b.query, '\\s+', ' ', 'g'), 60) || ' (' || b.state || ')'
               FROM pg_stat_activity b WHERE b.pid = (pg_blocking_pids(a.pid))[1] LIMIT 1) AS blocker_query
          FROM pg_stat_activity a
          WHERE a.backend_type = 'client backend' AND a.datname = current_database() AND a.pid <> pg_backend_pid()
            AND a.application_name <> '${CHANGE_FEED_APPLICATION_NAME}'`);
        samples += 1;
        for (const row of rows) {
          const key =
            row.state === 'active'
              ? `active, ${row.wait ?? 'on CPU'}${row.wait?.startsWith('Lock') ? '' : `: ${row.query}`}`
              : row.state;
          states.set(key, (states.get(key) ?? 0) + 1);
          if (row.waiting_for) {
            const what = `${row.waiting_for} | waiter: ${row.query} | holder: ${row.blocker_query ?? '?'}`;
            lockWaits.set(what, (lockWaits.get(what) ?? 0) + 1);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, Number(values.interval)));
      }
    })();
    const load = loadAverage();
    const apiBefore = cpuMs(server.child.pid!);
    const pgBefore = clusterCpuMs(postmaster) ?? Number.NaN;
    const result = await autocannon({
      url: server.url,
      connections: Number(values.connections),
      amount: prepared.amount,
      sampleInt: AMOUNT_SAMPLE_MS,
      headers: { authorization: `Bearer ${prepared.token}`, 'content-type': 'application/json' },
      requests: [prepared.request],
    });
    running = false;
    await sampling;
    const done = result.requests.total;
    const apiCpu = (cpuMs(server.child.pid!) - apiBefore) / done;
    const pgCpu = ((clusterCpuMs(postmaster) ?? Number.NaN) - pgBefore) / done;
    log(
      `\ndraft-order complete: ${(done / result.duration).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
        `${result.non2xx} non-2xx; CPU per completion: API ${apiCpu.toFixed(2)} ms, PostgreSQL ${pgCpu.toFixed(2)} ms ` +
        `(load average ${load} before; env ${JSON.stringify(extraEnv)})`,
    );
    const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);
    log(
      `\nThe API's connections, mean over ${samples} samples (${values.interval} ms apart) of how many are in each state:`,
    );
    for (const [key, count] of sorted(states)) log(`  ${(count / samples).toFixed(2)}  ${key}`);
    log('\nLock waits (mean waiters per sample; what is awaited, by whom, held by):');
    for (const [key, count] of sorted(lockWaits).slice(0, 10)) log(`  ${(count / samples).toFixed(2)}  ${key}`);
    const { rows: statements } = await monitor.query<{ calls: string; mean: number; total: number; query: string }>(`
      SELECT calls, mean_exec_time AS mean, total_exec_time AS total, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
      FROM pg_stat_statements WHERE calls >= ${Math.floor(done / 2)} ORDER BY total_exec_time DESC LIMIT 15`);
    log('\nStatements run at least once per two completions (server execution time; pg_stat_statements):');
    log('  calls | mean ms | ms per completion | statement');
    for (const s of statements)
      log(`  ${s.calls} | ${s.mean.toFixed(3)} | ${(s.total / done).toFixed(3)} | ${s.query}`);
    const { rows: wal } = await monitor.query<{
      writes: string;
      fsyncs: string;
      fsync_time: number;
      write_time: number;
    }>(
      `SELECT sum(writes) AS writes, sum(fsyncs) AS fsyncs, sum(fsync_time) AS fsync_time, sum(write_time) AS write_time
       FROM pg_stat_io WHERE object = 'wal'`,
    );
    log(
      `\nWAL: ${wal[0].fsyncs} fsyncs (${(Number(wal[0].fsyncs) / done).toFixed(2)} per completion), ` +
        `mean fsync ${(wal[0].fsync_time / Math.max(1, Number(wal[0].fsyncs))).toFixed(2)} ms, ${wal[0].writes} writes ` +
        `(mean ${(wal[0].write_time / Math.max(1, Number(wal[0].writes))).toFixed(2)} ms)`,
    );
    const { rows: walVolume } = await monitor.query<{ records: string; fpi: string; bytes: string }>(
      'SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes FROM pg_stat_wal',
    );
    const { rows: checkpoints } = await monitor.query<{ done: string }>(
      'SELECT num_done AS done FROM pg_stat_checkpointer',
    );
    log(
      `WAL per completion: ${(Number(walVolume[0].records) / done).toFixed(1)} records, ` +
        `${(Number(walVolume[0].fpi) / done).toFixed(2)} full-page images, ${(Number(walVolume[0].bytes) / done / 1024).toFixed(1)} kB ` +
        `(checkpoints since the cluster started: ${checkpoints[0].done})`,
    );
  } finally {
    await monitor.end();
    await stopServer(server);
  }
} finally {
  await embedded.stop();
}
process.exit(0);
