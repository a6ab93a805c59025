/**
 * `npm run bench:search` (`-- --products N --duration S --connections N --no-write`): seeds a throwaway
 * database with N products (default 100,000) from the search-quality generator's vocabulary, starts the
 * API as npm start runs it (dist/main.js with its node options, built when stale; jobs off) and measures
 * cold search (the long tail: every query new, so no answer or tsquery of it is cached; its words recur), the same
 * long tail and the 20 fixed searches on a process that forgets every index cache before each search
 * (SEARCH_INDEX_CACHES=off), then GET /v1/search with 20
 * fixed one-word, two-word, misspelled, phrase and filtered queries in turn (facets on) and GET /v1/search/suggest
 * with 8 fixed prefixes, with autocannon: req/s, p50, p95, p99; first with SEARCH_CACHE=off (the answer cache
 * off: the repeated queries still find the index's own caches warm), then with the answer cache on (the
 * default); then the search log's cost (the repeated searches with the log on and with SEARCH_LOG=off, alternating).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { buildServer, postmasterOf, startCompiledServer, startThrowawayPostgres, stopServer } from './kit.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import {
  BENCH_METRICS_TOKEN,
  SEARCHES,
  SUGGESTS,
  longTailSearches,
  measureEachOnce,
  measureMix,
  measureSearchLogCost,
  seedSearchCatalog,
  peakRssMb,
  waitForSearchIndexes,
  waitForSuggestIndex,
} from './search-scenarios.js';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    'no-write': { type: 'boolean', default: false },
  },
});
const PRODUCTS = Number(values.products);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);

const embedded = await startThrowawayPostgres('bench-search');
let server: { child: ChildProcess } | undefined;
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createProject(db, { name: 'Search benchmark' });
  await db.project.update({
    where: { id: project.id },
    data: { rateLimitPerMinute: 10_000_000, monthlyQuota: 1_000_000_000, storefrontClientSharePercent: 100 },
  });
  const started = Date.now();
  await seedSearchCatalog(db, project.id, PRODUCTS);
  console.log(
    `Seeded and indexed ${PRODUCTS.toLocaleString('en')} products in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
  const postmaster = await postmasterOf(db);
  await db.$disconnect();
  buildServer();
  const env = { DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' };
  const token = keys.publishable_test.token;
  const rows = [];
  // Without the answer cache first (the repeated mixes still meet the index's own caches), then with it (the default).
  for (const cache of ['off', 'on'] as const) {
    const api = await startCompiledServer({ ...env, SEARCH_CACHE: cache, METRICS_TOKEN: BENCH_METRICS_TOKEN });
    server = api;
    if (cache === 'off') {
      console.log(`Search indexes in use after ${await waitForSearchIndexes(api.url, token)} s.`);
      const m = await measureEachOnce(api.url, longTailSearches(), token, CONNECTIONS, DURATION);
      rows.push(
        `| **cold search: every query new** (long tail), answer cache off | ${m.rps} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.errors} | ${peakRssMb(api.child.pid) ?? '-'} |`,
      );
      console.log(rows.at(-1));
    }
    for (const [name, list] of [
      [`repeated searches (${SEARCHES.length} fixed, facets on)`, SEARCHES],
      [`repeated suggest (${SUGGESTS.length} fixed prefixes)`, SUGGESTS],
    ] as const) {
      // The in-process indexes are built once per process and project: measured once they are in use.
      if (list === SEARCHES)
        console.log(`Search indexes in use after ${await waitForSearchIndexes(api.url, token)} s.`);
      if (list === SUGGESTS) console.log(`Suggest index in use after ${await waitForSuggestIndex(api.url, token)} s.`);
      const m = await measureMix(api.url, list, token, CONNECTIONS, DURATION);
      rows.push(
        `| ${name}, answer cache ${cache} | ${m.rps} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.errors} | ${peakRssMb(api.child.pid) ?? '-'} |`,
      );
      console.log(rows.at(-1));
    }
    api.child.kill('SIGTERM');
    await new Promise((r) => api.child.once('exit', r));
    server = undefined;
  }
  // Every index cache forgotten before each search (SEARCH_INDEX_CACHES=off, a switch only for this): the long tail
  // and the fixed searches with nothing kept from another search.
  const cleared = await startCompiledServer({
    ...env,
    SEARCH_CACHE: 'off',
    SEARCH_INDEX_CACHES: 'off',
    METRICS_TOKEN: BENCH_METRICS_TOKEN,
  });
  server = cleared;
  console.log(`Search indexes in use after ${await waitForSearchIndexes(cleared.url, token)} s.`);
  for (const [name, m] of [
    [
      'cold search (long tail), every index cache cleared before each query',
      await measureEachOnce(cleared.url, longTailSearches(), token, CONNECTIONS, DURATION),
    ],
    [
      `repeated searches (${SEARCHES.length} fixed), every index cache cleared before each query`,
      await measureMix(cleared.url, SEARCHES, token, CONNECTIONS, DURATION),
    ],
  ] as const) {
    rows.push(
      `| ${name}, answer cache off | ${m.rps} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.errors} | ${peakRssMb(cleared.child.pid) ?? '-'} |`,
    );
    console.log(rows.at(-1));
  }
  await stopServer(cleared);
  server = undefined;
  // The search log's cost: processes with the answer cache, with and without the log, alternating (a fresh pair per pair of rounds).
  const logCost = await measureSearchLogCost(
    async (withLog) => {
      const api = await startCompiledServer(withLog ? env : { ...env, SEARCH_LOG: 'off' });
      return { url: api.url, pid: api.child.pid, stop: () => stopServer(api) };
    },
    token,
    CONNECTIONS,
    DURATION,
    3,
    postmaster,
  );
  console.log(logCost);
  const table = [
    `\`npm run bench:search -- --products ${PRODUCTS} --duration ${DURATION} --connections ${CONNECTIONS}\`: ${PRODUCTS.toLocaleString('en')} products, ${CONNECTIONS} connections, ${DURATION} s per scenario after 2 s warm-up, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)} at the end, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| scenario | req/s | p50 ms | p95 ms | p99 ms | errors | API peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    logCost,
  ].join('\n');
  console.log(table);
  if (!values['no-write']) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- search-bench:start -->\n${table}\n<!-- search-bench:end -->`;
    writeFileSync(
      readme,
      text.includes('<!-- search-bench:start -->')
        ? text.replace(/<!-- search-bench:start -->[\s\S]*<!-- search-bench:end -->/, block)
        : `${text.trimEnd()}\n\n## Search at scale\n\n${block}\n`,
    );
  }
} finally {
  server?.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1000));
  await embedded.stop();
}
