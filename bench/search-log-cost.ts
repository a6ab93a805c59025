/**
 * `npm run bench:search-log` (`-- --help` for the options): the search log's cost alone, on a small catalogue,
 * counted both as searches per second and as CPU per search (the API process's, and every PostgreSQL process's
 * together, from /proc), which moves far less with the machine's load. The cached search mix of
 * bench/search-scenarios.ts runs on compiled API processes (as npm start runs them) with the log and with
 * SEARCH_LOG=off, in rounds whose order rotates each cycle; with BENCH_BASE_CHECKOUT (another checkout with its own
 * build, such as the commit before a change) a third process runs that checkout's code with the log, in the same
 * rounds, so a before and an after are measured in the same minutes.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import {
  benchOptions,
  buildServer,
  clusterCpuMs,
  createBenchProject,
  loadAverage,
  postmasterOf,
  processCpuMs,
  startCompiledServer,
  stopServer,
} from './kit.js';
import { SEARCHES, measureMix, seedSearchCatalog } from './search-scenarios.js';

const USAGE = `Usage: npm run bench:search-log -- [--products N] [--duration S] [--connections N] [--cycles N] [--instances N]

Seeds --products products (default 10000), then measures the cached search mix on an API process with the search
log and on one with SEARCH_LOG=off for --duration seconds a round (default 8, after 2 s of warm-up) at --connections
connections (default 20), --cycles times (default 3) in a rotating order, after an uncounted round on each; with
--instances N (default 1), N processes of each setting (two processes of the same code can differ by as much as the
log's cost on a loaded machine). Prints searches per second and the API's and PostgreSQL's CPU per search for every
round, then the means per setting.

BENCH_BASE_CHECKOUT=<dir>: also a process of that checkout's compiled server (dist/, built there) with the log.
BENCH_PROFILE=<dir>: the processes write CPU profiles (node --cpu-prof) into <dir> when they stop.`;

const options = benchOptions(USAGE, { products: 10_000, duration: 8, connections: 20, cycles: 3, instances: 1 });
const log = (line: string) => process.stdout.write(`${line}\n`);

const dataDir = path.join(os.tmpdir(), `commerce-bench-search-log-${process.pid}`);
const embedded = await startEmbeddedPostgres({
  dir: dataDir,
  persistent: false,
  whenInUse: 'refuse',
});
const servers: Array<{ setting: string; name: string; url: string; child: ChildProcess }> = [];
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createBenchProject(db, 'Search log benchmark');
  await seedSearchCatalog(db, project.id, options.products);
  const postmaster = await postmasterOf(db);
  await db.$disconnect();
  buildServer();
  const env = { DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' };
  const profileDir = process.env.BENCH_PROFILE;
  const profile = (name: string) =>
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const base = process.env.BENCH_BASE_CHECKOUT;
  for (let n = 1; n <= options.instances; n++) {
    const name = (setting: string) => (options.instances > 1 ? `${setting} #${n}` : setting);
    const file = (setting: string) => name(setting).replace(/\W+/g, '-');
    const off = await startCompiledServer({ ...env, SEARCH_LOG: 'off' }, profile(file('off')));
    servers.push({ setting: 'off', name: name('off'), ...off });
    servers.push({ setting: 'on', name: name('on'), ...(await startCompiledServer(env, profile(file('on')))) });
    if (base) {
      const baseOn = await startCompiledServer(env, profile(file('base on')), base);
      servers.push({ setting: 'base on', name: name('base on'), ...baseOn });
    }
  }
  const token = keys.publishable_test.token;
  log(
    `Seeded ${options.products} products; processes: ${servers.map((s) => s.name).join(', ')}; load ${loadAverage()}.`,
  );
  for (const server of servers) await measureMix(server.url, SEARCHES, token, options.connections, options.duration);
  const rounds = new Map<string, Array<{ rps: number; api: number; pg: number }>>(servers.map((s) => [s.setting, []]));
  for (let cycle = 0; cycle < options.cycles; cycle++) {
    const order = servers.map((_, i) => servers[(i + cycle) % servers.length]);
    for (const server of order) {
      const load = loadAverage();
      let [apiBefore, pgBefore] = [0, 0];
      const { rps } = await measureMix(server.url, SEARCHES, token, options.connections, options.duration, () => {
        [apiBefore, pgBefore] = [processCpuMs(server.child.pid) ?? 0, clusterCpuMs(postmaster) ?? 0];
      });
      const searches = rps * options.duration;
      const api = (((processCpuMs(server.child.pid) ?? 0) - apiBefore) * 1000) / searches;
      const pg = (((clusterCpuMs(postmaster) ?? 0) - pgBefore) * 1000) / searches;
      rounds.get(server.setting)!.push({ rps, api, pg });
      log(
        `cycle ${cycle + 1} ${server.name}: ${rps} searches/s, CPU per search API ${api.toFixed(0)} µs, PostgreSQL ${pg.toFixed(0)} µs (load ${load})`,
      );
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  for (const [name, list] of rounds) {
    log(
      `${name}: ${mean(list.map((r) => r.rps)).toFixed(0)} searches/s (${list.map((r) => r.rps).join(', ')}); CPU per search API ${mean(list.map((r) => r.api)).toFixed(0)} µs, PostgreSQL ${mean(list.map((r) => r.pg)).toFixed(0)} µs`,
    );
  }
  log(`Load average at the end: ${loadAverage()}.`);
} finally {
  for (const server of servers) await stopServer(server);
  await embedded.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
