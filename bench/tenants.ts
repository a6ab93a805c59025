/**
 * `npm run bench:tenants` (`-- --products N --duration S --connections N --rounds N --write-rate N --no-write`):
 * whether one project's traffic and writes slow another's. Seeds a throwaway database with tenant A (N products,
 * default 40,000, from the search-quality vocabulary, and 20,000 customers) and tenants B and C (a few hundred
 * products each), starts the API as npm start runs it (dist/main.js; jobs off) with the search answer cache off (every
 * search is matched and ranked, from A's in-process index while it is exact) and measures A's search mix and A's
 * customer list at 20 connections in alternating rounds:
 *   - quiet: nothing else happens;
 *   - others write: B and C create products and customers through the API, `--write-rate` a second in all;
 *   - A writes: A itself creates products through the API at the same rate during its searches.
 * Reports req/s, p50 and p99 per round and the ratio of the writing rounds' p99 to the quiet rounds', and writes the
 * table into bench/README.md between its markers (unless --no-write).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { seedCustomers } from '../src/seed/customers.seed.js';
import { buildServer, createBenchProject, startCompiledServer, startThrowawayPostgres, stopServer } from './kit.js';
import {
  BENCH_METRICS_TOKEN,
  SEARCHES,
  measureMix,
  seedSearchCatalog,
  waitForSearchIndexes,
  type MixResult,
} from './search-scenarios.js';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '40000' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    'write-rate': { type: 'string', default: '4' },
    'no-write': { type: 'boolean', default: false },
  },
});
const PRODUCTS = Number(values.products);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const WRITE_RATE = Number(values['write-rate']);

const WORDS = 'black navy olive walnut oak linen wool cotton lamp table shirt jacket sweater mug chair blanket'.split(
  ' ',
);

/**
 * Writes through the API at `rate` a second (products, and customers where `customers`) with the given secret keys
 * in turn, until stopped; counts what was written and what failed.
 */
function startWriting(base: string, secretKeys: string[], rate: number, customers: boolean) {
  let running = true;
  let written = 0;
  let failed = 0;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const next = Date.now() + 1000 / rate;
      const key = secretKeys[n % secretKeys.length];
      const isCustomer = customers && n % 2 === 1;
      const body = isCustomer
        ? { email: `writer-${Date.now()}-${n}@example.com`, first_name: 'Writer', last_name: `N${n}` }
        : {
            title: `${WORDS[n % WORDS.length]} ${WORDS[(n * 7 + 3) % WORDS.length]} ${n}`,
            status: 'active',
            variants: [{ title: 'One', price: 1000 + (n % 50) * 100 }],
          };
      const response = await fetch(`${base}/v1/${isCustomer ? 'customers' : 'products'}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.text();
      if (response.status === 201) written++;
      else failed++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { written, failed };
  };
}

const embedded = await startThrowawayPostgres('bench-tenants');
let server: { child: ChildProcess } | undefined;
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const tenantA = await createBenchProject(db, 'Tenant A');
  const tenantB = await createBenchProject(db, 'Tenant B');
  const tenantC = await createBenchProject(db, 'Tenant C');
  const started = Date.now();
  await seedSearchCatalog(db, tenantA.project.id, PRODUCTS);
  await seedCustomers(db, tenantA.project.id, 20_000);
  await seedSearchCatalog(db, tenantB.project.id, 500, 'b');
  await seedSearchCatalog(db, tenantC.project.id, 500, 'c');
  console.log(`Seeded the three tenants in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  await db.$disconnect();
  buildServer();
  const api = await startCompiledServer({
    DATABASE_URL: embedded.url,
    PORT: '0',
    RUN_JOBS: 'false',
    LOG_LEVEL: 'warn',
    SEARCH_CACHE: 'off',
    METRICS_TOKEN: BENCH_METRICS_TOKEN,
  });
  server = api;
  const searchKey = tenantA.keys.publishable_test.token;
  console.log(`A's search indexes in use after ${await waitForSearchIndexes(api.url, searchKey)} s.`);

  const scenarios = [
    { name: "A's search mix (answer cache off)", paths: SEARCHES, key: searchKey },
    { name: "A's customer list", paths: ['/v1/customers?limit=20'], key: tenantA.keys.secret_test.token },
  ];
  const conditions = [
    {
      name: 'others write',
      writers: [tenantB.keys.secret_test.token, tenantC.keys.secret_test.token],
      customers: true,
    },
    { name: 'A writes', writers: [tenantA.keys.secret_test.token], customers: false },
  ];
  const rows: string[] = [];
  for (const scenario of scenarios)
    for (const condition of conditions) {
      const quiet: MixResult[] = [];
      const writing: MixResult[] = [];
      let writes = { written: 0, failed: 0 };
      // Alternating: quiet, writing, writing, quiet, ... so a drift of the machine falls on both alike.
      for (let round = 0; round < ROUNDS * 2; round++) {
        const write = round % 4 === 1 || round % 4 === 2;
        const stop = write ? startWriting(api.url, condition.writers, WRITE_RATE, condition.customers) : undefined;
        const result = await measureMix(api.url, scenario.paths, scenario.key, CONNECTIONS, DURATION);
        if (stop) {
          const counted = await stop();
          writes = { written: writes.written + counted.written, failed: writes.failed + counted.failed };
        }
        (write ? writing : quiet).push(result);
        console.log(`${scenario.name}, ${write ? condition.name : 'quiet'}: ${JSON.stringify(result)}`);
      }
      const mean = (list: MixResult[], pick: (m: MixResult) => number) =>
        Math.round((list.reduce((sum, m) => sum + pick(m), 0) / list.length) * 10) / 10;
      const each = (list: MixResult[], pick: (m: MixResult) => number) => list.map(pick).join(' / ');
      const ratio =
        mean(writing, (m) => m.p99) /
        Math.max(
          0.1,
          mean(quiet, (m) => m.p99),
        );
      rows.push(
        `| ${scenario.name} | ${condition.name} (${writes.written} writes, ${writes.failed} failed) | ` +
          `${each(quiet, (m) => m.rps)} | ${each(writing, (m) => m.rps)} | ${each(quiet, (m) => m.p50)} | ` +
          `${each(writing, (m) => m.p50)} | ${each(quiet, (m) => m.p99)} | ${each(writing, (m) => m.p99)} | ` +
          `${ratio.toFixed(2)} |`,
      );
      console.log(rows.at(-1));
    }
  await stopServer(api);
  server = undefined;
  const table = [
    `\`npm run bench:tenants -- --products ${PRODUCTS} --duration ${DURATION} --connections ${CONNECTIONS} --rounds ${ROUNDS} --write-rate ${WRITE_RATE}\`: tenant A with ${PRODUCTS.toLocaleString('en')} products and 20,000 customers, tenants B and C with 500 products each, ${CONNECTIONS} connections, ${DURATION} s a round after 2 s of warm-up, rounds alternating (quiet, writing, writing, quiet), writes at ${WRITE_RATE} a second through the API, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)} at the end, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| scenario | while | req/s quiet | req/s writing | p50 ms quiet | p50 ms writing | p99 ms quiet | p99 ms writing | p99 writing / quiet |',
    '|---|---|---|---|---|---|---|---|---:|',
    ...rows,
  ].join('\n');
  console.log(table);
  if (!values['no-write']) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- tenants-bench:start -->\n${table}\n<!-- tenants-bench:end -->`;
    writeFileSync(
      readme,
      text.includes('<!-- tenants-bench:start -->')
        ? text.replace(/<!-- tenants-bench:start -->[\s\S]*<!-- tenants-bench:end -->/, block)
        : `${text.trimEnd()}\n\n## Many tenants\n\n${block}\n`,
    );
  }
} finally {
  server?.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1000));
  await embedded.stop();
}
