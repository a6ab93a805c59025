/**
 * `npm run bench` (`-- --help` for the options): seeds a project with 100k customers, then measures get-by-id, list (limit 25, with
 * total; alone, and with customers created alongside so the API's cached totals are recounted), a filtered search and
 * create on the API and on a bare Koa + pg baseline running the same SQL as prepared statements, in one run on this
 * machine, and prints requests per second, p50/p99 latency, the ratio to the baseline and which database work each
 * side does; then the product list, the rate lookup and draft-order completion (each draft its own variants, and
 * contended: every draft on a few shared variants) on the API alone; then seeds 100k products into a project of their
 * own and measures cold search (the long tail: every query new, answer cache off; and the time and memory the
 * in-process indexes take to build), the 20 repeated searches and 8 repeated suggest prefixes of
 * bench/search-scenarios.ts (answer cache off, then on: with it off the index's own caches still answer repeats warm;
 * between the two, the long tail and the repeated searches with every index cache forgotten before each search)
 * and the search log's cost (on and off, alternating). The tables are also written into bench/README.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { progress } from '../src/seed/progress.js';
import { seedCustomers } from '../src/seed/customers.seed.js';
import { seedCatalog } from '../src/seed/catalog.seed.js';
import {
  AMOUNT_SAMPLE_MS,
  createBenchProject,
  loadAverage,
  postmasterOf,
  startCommand,
  startThrowawayPostgres,
} from './kit.js';
import { COMPLETION_WARM_UP, SHARED_VARIANTS, moreScenarios } from './more-scenarios.js';
import { measureCheckouts } from './checkout-run.js';
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

const USAGE = `Usage: npm run bench -- [--customers N] [--search-products N] [--products N] [--completions N] [--checkouts N] [--duration S] [--connections N] [--no-write]

Seeds a throwaway database with customers, then measures the customer endpoints of the API against a bare
Koa + pg baseline (2 s of warm-up, then --duration seconds, twice per scenario and server, alternating; the
mean, the rounds' spread, noisy scenarios and the load average before each round are printed) and prints the table;
then measures the catalog and completion scenarios on the API alone; then seeds products and measures cold search
(every query new), the repeated search and suggest mixes (answer cache off, then on) and the search log's cost.

Options:
  --customers N        customers to seed (default 100000; env BENCH_CUSTOMERS)
  --search-products N  products of the search scenarios, in a project of their own (default 100000;
                       env BENCH_SEARCH_PRODUCTS; 0 skips them)
  --products N         products of the product list and the drafts' line items (default 10000)
  --completions N      drafts completed per completion scenario, after 200 not measured (default 2000)
  --checkouts N        checkout journeys measured (create, two lines, address, rates, rate, complete), after
                       CHECKOUT_WARM_UP not measured (default 1000; 0 skips them)
  --duration S         seconds measured per scenario and server, after the warm-up (default 10; env BENCH_SECONDS)
  --connections N      concurrent connections (default 20; env BENCH_CONNECTIONS)
  --no-write           print the tables without writing them into bench/README.md
  -h, --help           show this help

BENCH_DATABASE_URL: measure on this PostgreSQL instead of a throwaway embedded one.`;

/** The command line (with the BENCH_* variables as defaults); exits with the usage on --help or a bad value. */
function parseOptions(): {
  customers: number;
  searchProducts: number;
  products: number;
  completions: number;
  checkouts: number;
  duration: number;
  connections: number;
  write: boolean;
} {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        customers: { type: 'string', default: process.env.BENCH_CUSTOMERS ?? '100000' },
        'search-products': { type: 'string', default: process.env.BENCH_SEARCH_PRODUCTS ?? '100000' },
        products: { type: 'string', default: '10000' },
        completions: { type: 'string', default: '2000' },
        checkouts: { type: 'string', default: '1000' },
        duration: { type: 'string', default: process.env.BENCH_SECONDS ?? '10' },
        connections: { type: 'string', default: process.env.BENCH_CONNECTIONS ?? '20' },
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, text: string) => {
    const value = Number(text);
    if (Number.isInteger(value) && value > 0) return value;
    console.error(`--${name} must be a whole number above 0, got "${text}".\n\n${USAGE}`);
    return process.exit(2);
  };
  return {
    customers: positive('customers', values.customers),
    searchProducts: values['search-products'] === '0' ? 0 : positive('search-products', values['search-products']),
    products: positive('products', values.products),
    completions: positive('completions', values.completions),
    checkouts: values.checkouts === '0' ? 0 : positive('checkouts', values.checkouts),
    duration: positive('duration', values.duration),
    connections: positive('connections', values.connections),
    write: !values['no-write'],
  };
}

const options = parseOptions();
const CUSTOMERS = options.customers;
const SEARCH_PRODUCTS = options.searchProducts;
const DURATION = options.duration;
const CONNECTIONS = options.connections;
// The catalog behind the product list and the draft orders' line items; drafts completed per completion scenario.
const PRODUCTS = options.products;
const COMPLETIONS = options.completions;
const CHECKOUTS = options.checkouts;
// Customers created per second alongside the list rows that say so: a busy back office's rate, enough that the
// API's cached totals are recounted several times a second.
const LIST_WRITES_PER_SECOND = 10;

interface Server {
  url: string;
  child: ChildProcess;
}

// The environment and node options npm start runs the compiled server with: the API is measured as deployed.
const START = startCommand(root);

/** Starts `script`: a compiled .js file as npm start runs it (the API), a .ts file through tsx. */
function startServer(script: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(
    process.execPath,
    script.endsWith('.js') ? [...START.options, script] : ['--import', 'tsx', script],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        NODE_ENV: 'production',
        ...(script.endsWith('.js') ? START.env : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

/** Follows the API's cursors from the first page of customers to page `pages + 1`: its cursor and where it starts. */
async function walkToDeepPage(url: string, headers: Record<string, string>, pages: number) {
  let cursor = '';
  let last: { id: string; created_at: string } | undefined;
  for (let page = 0; page < pages; page++) {
    const response = await fetch(
      `${url}/v1/customers?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { headers },
    );
    const body = (await response.json()) as {
      data: Array<{ id: string; created_at: string }>;
      pagination: { cursor: string | null };
    };
    if (!body.pagination.cursor) break;
    cursor = body.pagination.cursor;
    last = body.data.at(-1);
  }
  return { cursor, afterCreated: last!.created_at, afterId: last!.id, depth: pages * 25 };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's peak resident memory during the measurement, in MB (Linux /proc). */
  rssMb: number;
}

/** The process's resident memory now, in MB (Linux /proc). */
function rssNowMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

// Numbers the emails of every create alongside, over all rounds (an email is unique in a project).
let createdAlongside = 0;

/**
 * Creates customers through `url` (the baseline's bare create, so neither server's CPU is spent on them more
 * than the other's) at `perSecond` until stopped; stopping answers how many were created and failed. The API
 * hears of each through its change feed and recounts its cached list totals at its next list page.
 */
function createCustomersAlongside(
  url: string,
  perSecond: number,
): () => { created: number; failed: number; firstFailure?: string } {
  let created = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const timer = setInterval(() => {
    const email = `alongside${process.pid}.${++createdAlongside}@example.com`;
    fetch(`${url}/v1/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, first_name: 'Along', last_name: 'Side' }),
    })
      .then(async (response) => {
        const text = await response.text();
        if (response.status === 201) created++;
        else {
          failed++;
          firstFailure ??= `${response.status} ${text.slice(0, 200)}`;
        }
      })
      .catch((error: unknown) => {
        failed++;
        firstFailure ??= String(error);
      });
  }, 1000 / perSecond);
  return () => {
    clearInterval(timer);
    return { created, failed, firstFailure };
  };
}

/** Samples the process's resident memory every 100 ms until stopped; the peak in MB. */
function sampleRss(pid: number): () => number {
  let peak = 0;
  const read = () => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) peak = Math.max(peak, Number(match[1]) / 1024);
  };
  read();
  const timer = setInterval(read, 100);
  return () => {
    clearInterval(timer);
    read();
    return Math.round(peak);
  };
}

/** One autocannon run of `duration` seconds, shown as a bar over its seconds with the live request rate. */
function load(
  label: string,
  url: string,
  request: autocannon.Request,
  headers: Record<string, string>,
  duration: number,
): Promise<autocannon.Result> {
  const bar = progress(label, duration, 's', { lines: 1 });
  let seconds = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration,
        headers: { 'content-type': 'application/json', ...headers },
        requests: [request],
      },
      (error, result) => {
        if (result) bar.update(duration, result.requests.average);
        bar.stop();
        if (error) reject(error as Error);
        else resolve(result);
      },
    );
    // autocannon passes each second's counts to 'tick' (its types omit them).
    (instance as NodeJS.EventEmitter).on('tick', ({ counter }: { counter: number }) => {
      if (++seconds < duration) bar.update(seconds, counter);
    });
  });
}

async function measure(
  server: Server & { name: string },
  request: autocannon.Request,
  headers: Record<string, string>,
): Promise<Measured> {
  await load(`  ${server.name} warm-up`, server.url, request, headers, 2); // JIT, connection pools, caches
  const peakRss = sampleRss(server.child.pid!);
  const result = await load(`  ${server.name}`, server.url, request, headers, DURATION);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    rssMb: peakRss(),
  };
}

/** A fixed number of requests (each consumes something, like a draft to complete) instead of a duration. */
async function measureAmount(
  server: Server,
  request: autocannon.Request,
  headers: Record<string, string>,
  amount: number,
): Promise<Measured> {
  const peakRss = sampleRss(server.child.pid!);
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    amount,
    sampleInt: AMOUNT_SAMPLE_MS,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [request],
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    rssMb: peakRss(),
  };
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Rounds whose request rates differ by more than this (of their mean) make a scenario's figure noisy. */
const NOISY_SPREAD = 0.15;

/** Two or more rounds of one scenario on one server: their mean, the spread between them, the worst latency and memory. */
interface Rounds {
  rps: number;
  rounds: number[];
  /** (highest - lowest) / mean of the rounds' request rates. */
  spread: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
  /** The load average (1 minute) before each round. */
  loads: number[];
}

function combine(measured: Array<Measured & { load: number }>): Rounds {
  const rates = measured.map((m) => m.rps);
  const rps = rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    rps,
    rounds: rates,
    spread: (Math.max(...rates) - Math.min(...rates)) / rps,
    p50: Math.round(mean(measured.map((m) => m.p50)) * 10) / 10,
    p99: Math.round(mean(measured.map((m) => m.p99)) * 10) / 10,
    errors: measured.reduce((sum, m) => sum + m.errors, 0),
    rssMb: Math.max(...measured.map((m) => m.rssMb)),
    loads: measured.map((m) => m.load),
  };
}

/** The machine's 1-minute load average now, printed before a round (a busy machine explains a slow round). */
function loadBefore(label: string): number {
  const load = os.loadavg()[0];
  log(`  load average ${loadAverage()} before ${label}`);
  return load;
}

/**
 * Each of `runs` measured twice, alternating (a1, b1, a2, b2): a machine that gets busier or quieter during the
 * run weighs on every server alike. Resolves to each one's mean of its two rounds.
 */
async function alternating(runs: Array<{ label: string; run: () => Promise<Measured> }>): Promise<Rounds[]> {
  const measured: Array<Array<Measured & { load: number }>> = runs.map(() => []);
  for (const round of [1, 2]) {
    for (const [i, { label, run }] of runs.entries()) {
      const load = loadBefore(`${label}, round ${round}`);
      measured[i].push({ ...(await run()), load });
    }
  }
  return measured.map(combine);
}

/** `mean (round 1 / round 2, spread %)` with `noisy` when the rounds differ by more than NOISY_SPREAD. */
const roundsCell = (r: Rounds) =>
  `${r.rps.toFixed(0)} (${r.rounds.map((v) => v.toFixed(0)).join(' / ')}, ±${((r.spread * 100) / 2).toFixed(0)} %${r.spread > NOISY_SPREAD ? ', **noisy**' : ''})`;
const loadsCell = (r: Rounds) => r.loads.map((l) => l.toFixed(1)).join(', ');

/**
 * Seeds SEARCH_PRODUCTS products into a project of their own, then with its publishable key: on an API process
 * without the answer cache (SEARCH_CACHE=off), the time and memory its in-process indexes take to build, cold
 * search (the long tail: every query new, so neither the answer cache nor the compiled tsqueries have seen it; its
 * words recur, so their kept sets, ranks and typo candidates may be warm) and the repeated mixes (20 searches and 8 suggest
 * prefixes in turn: the answer cache does not answer them, but the index's own caches do, warm); then the repeated
 * mixes on a process with the answer cache. Between the two, on a process that forgets every index cache before each
 * search (SEARCH_INDEX_CACHES=off), the long tail again and the repeated searches: nothing kept from another search.
 */
async function measureSearch(databaseUrl: string): Promise<string> {
  const started = Date.now();
  log(`Seeding ${SEARCH_PRODUCTS.toLocaleString('en')} products for search...`);
  const db = createDatabase(databaseUrl);
  const { project, keys } = await createProject(db, { name: 'Search benchmark' });
  await db.project.update({
    where: { id: project.id },
    data: { rateLimitPerMinute: 10_000_000, monthlyQuota: 1_000_000_000, storefrontClientSharePercent: 100 },
  });
  await seedSearchCatalog(db, project.id, SEARCH_PRODUCTS);
  // PostgreSQL's CPU per search is counted when it runs on this machine (embedded, or a local BENCH_DATABASE_URL).
  const postmaster = await postmasterOf(db);
  await db.$disconnect();
  const token = keys.publishable_test.token;
  log(`Seeded and indexed in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  const rows: string[] = [];
  let build = '';
  const row = (name: string, cache: string, m: Awaited<ReturnType<typeof measureMix>>, pid: number | undefined) =>
    `| ${name} | ${cache} | ${m.rps} | ${m.p50} | ${m.p95} | ${m.p99} | ${peakRssMb(pid) ?? '-'} |${m.errors > 0 ? ` errors: ${m.errors}` : ''}`;
  // Three processes in turn: the answer cache off; off with every index cache forgotten before each search
  // (SEARCH_INDEX_CACHES=off, a switch that exists only for this); the answer cache on.
  for (const mode of ['off', 'cleared', 'on'] as const) {
    const cache = mode === 'on' ? 'on' : 'off';
    const api = await startServer('dist/main.js', {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      RUN_JOBS: 'false',
      LOG_LEVEL: 'warn',
      SEARCH_CACHE: cache,
      METRICS_TOKEN: BENCH_METRICS_TOKEN,
      ...(mode === 'cleared' ? { SEARCH_INDEX_CACHES: 'off' } : {}),
    });
    try {
      // The in-process indexes are built on a project's first search and suggestion (in the background; until then
      // searches run their statements): the time from the first search until every index answers, and the
      // process's resident memory before and after.
      const idle = rssNowMb(api.child.pid!);
      const searchReady = await waitForSearchIndexes(api.url, token);
      const suggestReady = await waitForSuggestIndex(api.url, token);
      const built = rssNowMb(api.child.pid!);
      log(`Search indexes in use after ${searchReady} s, the suggest index ${suggestReady} s later.`);
      if (mode === 'cleared') {
        // Every index cache forgotten before each search: what a search costs with nothing kept from another
        // (compiled tsqueries, kept sets, ranks, impact orders, typo candidates), new queries and repeated ones.
        for (const [name, paths] of [
          ['cold search, every index cache cleared before each query (every query new, as above)', longTailSearches()],
          [
            `repeated searches, every index cache cleared before each query (the ${SEARCHES.length} fixed queries)`,
            SEARCHES,
          ],
        ] as const) {
          log(`Measuring ${name} (${DURATION} s, ${CONNECTIONS} connections)...`);
          const m = Array.isArray(paths)
            ? await measureMix(api.url, paths, token, CONNECTIONS, DURATION)
            : await measureEachOnce(api.url, paths as Iterator<string>, token, CONNECTIONS, DURATION);
          rows.push(row(name, 'off', m, api.child.pid));
        }
        continue;
      }
      if (mode === 'off') {
        const per10k = (value: number) => ((value * 10_000) / SEARCH_PRODUCTS).toFixed(1);
        const seconds = searchReady + suggestReady;
        build =
          `Index build (answer cache off process, from its first search): the product index and the suggest vocabulary in use after ${searchReady.toFixed(1)} s, ` +
          `the suggest index ${suggestReady.toFixed(1)} s later: **${seconds.toFixed(1)} s, ${per10k(seconds)} s per 10k products**; ` +
          `the process's resident memory ${idle.toFixed(0)} MB before, ${built.toFixed(0)} MB after: **+${(built - idle).toFixed(0)} MB, ${per10k(built - idle)} MB per 10k products** ` +
          '(RSS growth over the build: the indexes, and whatever else the process allocated meanwhile).';
        // The headline cold figure: queries never asked before (no answer or tsquery of theirs cached; their words recur).
        log(`Measuring cold search, every query new (${DURATION} s, ${CONNECTIONS} connections)...`);
        const cold = await measureEachOnce(api.url, longTailSearches(), token, CONNECTIONS, DURATION);
        rows.push(
          row(
            '**cold search: every query new** (long tail: 2-3 catalogue words, a fifth in stock only)',
            cache,
            cold,
            api.child.pid,
          ),
        );
      }
      for (const [name, paths] of [
        [`repeated searches (${SEARCHES.length} fixed queries in turn, facets on)`, SEARCHES],
        [`repeated suggest (${SUGGESTS.length} fixed prefixes in turn)`, SUGGESTS],
      ] as const) {
        log(`Measuring ${name}, answer cache ${cache} (${DURATION} s, ${CONNECTIONS} connections)...`);
        const m = await measureMix(api.url, paths, token, CONNECTIONS, DURATION);
        rows.push(row(name, cache, m, api.child.pid));
      }
    } finally {
      api.child.kill('SIGTERM');
      await new Promise((resolve) => api.child.once('exit', resolve));
    }
  }
  log('Measuring the search log: the search mix with the log on and off, in alternating rounds (its cost)...');
  const env = { DATABASE_URL: databaseUrl, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' };
  const start = async (withLog: boolean) => {
    const api = await startServer('dist/main.js', withLog ? env : { ...env, SEARCH_LOG: 'off' });
    return {
      url: api.url,
      pid: api.child.pid,
      stop: async () => {
        api.child.kill('SIGTERM');
        await new Promise((resolve) => api.child.once('exit', resolve));
      },
    };
  };
  const logCost = await measureSearchLogCost(start, token, CONNECTIONS, DURATION, 3, postmaster);
  const searchTable = [
    `Search at ${SEARCH_PRODUCTS.toLocaleString('en')} products (a project of its own, generated catalog, publishable key; load average ${os.loadavg()[0].toFixed(1)} after). ` +
      'The cold figure is the first row: every query new. The repeated rows send the same few queries again and again: ' +
      "with the answer cache off they still find the index's own caches (compiled tsqueries, kept sets, impact orders, ranks) warm, so they are not cold. " +
      'The rows "every index cache cleared" ran on a process that forgets all of them before each search (`SEARCH_INDEX_CACHES=off`, a switch only for this).',
    '',
    '| scenario | answer cache | req/s | p50 ms | p95 ms | p99 ms | API peak RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    build,
    '',
    logCost,
  ].join('\n');
  log(`\n${searchTable}\n`);
  return searchTable;
}

const embedded = process.env.BENCH_DATABASE_URL ? undefined : await startThrowawayPostgres('bench');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;
const servers: Server[] = [];
try {
  log(`Database: ${embedded ? 'throwaway embedded PostgreSQL' : 'BENCH_DATABASE_URL'}; migrating.`);
  await migrate(databaseUrl);
  const db = createDatabase(databaseUrl);
  const { project, keys } = await createBenchProject(db, 'Benchmark Store');
  // The checkout journeys pay with the test provider's tokens (deterministic, no provider reached).
  await db.project.update({ where: { id: project.id }, data: { paymentProvider: 'test' } });
  const started = Date.now();
  const seeding = progress('Seeding', CUSTOMERS, 'customers');
  await seedCustomers(db, project.id, CUSTOMERS, { onProgress: (done) => seeding.update(done) }).finally(() =>
    seeding.stop(),
  );
  const catalog = progress('Seeding', PRODUCTS, 'products');
  await seedCatalog(db, project.id, PRODUCTS, { batchSize: 1000, onProgress: (done) => catalog.update(done) }).finally(
    () => catalog.stop(),
  );
  await db.$executeRawUnsafe('VACUUM ANALYZE customers, products, variants, inventory_levels');
  log(`Seeded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  const ids = (await db.customer.findMany({ where: { projectId: project.id }, select: { id: true }, take: 2000 })).map(
    (c) => c.id,
  );
  const variantIds = (
    await db.variant.findMany({ where: { projectId: project.id }, select: { id: true }, take: 20_000 })
  ).map((v) => v.id);
  await db.$disconnect();

  execFileSync(process.execPath, ['codegen/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  const api = await startServer('dist/main.js', {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    RUN_JOBS: 'false',
    LOG_LEVEL: 'warn',
  });
  // The same API without rate limits, for the cost of the limits on get by id (the aim: at most 5 %, bench/README.md).
  const unlimited = await startServer('dist/main.js', {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    RUN_JOBS: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
  });
  servers.push(unlimited);
  const baseline = await startServer('bench/baseline-server.ts', {
    DATABASE_URL: databaseUrl,
    BENCH_PROJECT_ID: project.id,
  });
  servers.push(api, baseline);
  const auth = { authorization: `Bearer ${keys.secret_test.token}` };

  let created = 0;
  // A deep page: the cursor after half the customers (walked once through the API), and for the baseline the same
  // place as a keyset (created_at, id) of the row before it.
  const deep = await walkToDeepPage(api.url, auth, Math.max(1, Math.floor(CUSTOMERS / 2 / 25)));
  // `work`: the database work of each side, as the table says it (the same, or how it differs).
  const scenarios: Array<{
    name: string;
    work: string;
    /** Customers created per second during both servers' rounds (through the baseline's bare create). */
    writes?: number;
    request: (server: 'api' | 'baseline') => autocannon.Request;
  }> = [
    {
      name: 'get by id',
      work: 'same: one prepared statement each',
      request: () => ({
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/v1/customers/${ids[Math.floor(Math.random() * ids.length)]}` }),
      }),
    },
    {
      name: 'list (limit 25, total), no writes',
      work: "**not the same**: the API's total from its cache (no writes: never recounted); the baseline counts every page",
      request: () => ({ method: 'GET', path: '/v1/customers?limit=25' }),
    },
    {
      name: `list (limit 25, total), ${LIST_WRITES_PER_SECOND} creates/s alongside`,
      work: `closer: the API recounts its total after each of the ~${LIST_WRITES_PER_SECOND} creates a second; the baseline counts every page`,
      writes: LIST_WRITES_PER_SECOND,
      request: () => ({ method: 'GET', path: '/v1/customers?limit=25' }),
    },
    {
      name: `list (limit 25, total), ${LIST_WRITES_PER_SECOND} creates/s alongside, both keep the total`,
      work: `**same**: both count the total once after each of the ~${LIST_WRITES_PER_SECOND} creates a second and read the page (the API keeps it until its change feed reports the write; the baseline until it makes the next create)`,
      writes: LIST_WRITES_PER_SECOND,
      request: (server) => ({
        method: 'GET',
        path: server === 'api' ? '/v1/customers?limit=25' : '/v1/customers?limit=25&total=kept',
      }),
    },
    {
      name: `list, deep page (${deep.depth.toLocaleString('en')} in)`,
      work: "**not the same**: the API's total comes with the cursor (counted once, at the walk's start); the baseline counts every page",
      request: (server) => ({
        method: 'GET',
        path:
          server === 'api'
            ? `/v1/customers?limit=25&cursor=${encodeURIComponent(deep.cursor)}`
            : `/v1/customers?after_created=${encodeURIComponent(deep.afterCreated)}&after_id=${deep.afterId}`,
      }),
    },
    {
      name: 'filtered search',
      work: "**not the same**: the API's total from its cache (no writes); the baseline counts every page",
      request: () => ({ method: 'GET', path: '/v1/customers?search=ann&status=active&limit=25' }),
    },
    {
      name: 'create',
      work: 'same: one prepared statement each (the customer and its store event)',
      request: () => ({
        method: 'POST',
        path: '/v1/customers',
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            email: `bench${process.pid}.${++created}@example.com`,
            first_name: 'Bench',
            last_name: 'Mark',
          }),
        }),
      }),
    },
  ];

  const rows: string[] = [];
  let getByIdRps = 0;
  let peakRss = 0;
  for (const scenario of scenarios) {
    log(
      `Measuring ${scenario.name} (${DURATION} s per round, two rounds each, alternating; ${CONNECTIONS} connections)...`,
    );
    const written = { created: 0, failed: 0, seconds: 0 };
    // Creates alongside (when the scenario has them) during each round, warm-up included, on both servers alike.
    const alongside = async (run: () => Promise<Measured>) => {
      if (!scenario.writes) return run();
      const started = Date.now();
      const stop = createCustomersAlongside(baseline.url, scenario.writes);
      try {
        return await run();
      } finally {
        const { created, failed, firstFailure } = stop();
        written.created += created;
        written.failed += failed;
        if (firstFailure) log(`  a create alongside failed: ${firstFailure}`);
        written.seconds += (Date.now() - started) / 1000;
      }
    };
    const [ours, base] = await alternating([
      { label: 'API', run: () => alongside(() => measure({ ...api, name: 'API' }, scenario.request('api'), auth)) },
      {
        label: 'baseline',
        run: () => alongside(() => measure({ ...baseline, name: 'baseline' }, scenario.request('baseline'), {})),
      },
    ]);
    const work = scenario.writes
      ? `${scenario.work} (${(written.created / written.seconds).toFixed(1)} creates/s made${written.failed > 0 ? `, ${written.failed} failed` : ''})`
      : scenario.work;
    if (scenario.name === 'get by id') getByIdRps = ours.rps;
    peakRss = Math.max(peakRss, ours.rssMb);
    const ratio = ours.rps / base.rps;
    rows.push(
      `| ${scenario.name} | ${roundsCell(ours)} | ${ours.p50} | ${ours.p99} | ${ours.rssMb} | ${roundsCell(base)} | ${base.p50} | ${base.p99} | ${(ratio * 100).toFixed(0)} % | ${work} | ${((ours.rps / getByIdRps) * 100).toFixed(0)} % | ${loadsCell(ours)} |` +
        (ours.errors + base.errors > 0 ? ` errors: ${ours.errors}/${base.errors}` : ''),
    );
  }
  log('Measuring get by id with the rate limits on and off, alternating twice (their cost)...');
  const getById = scenarios[0].request('api');
  const rounds: Record<'on' | 'off', number[]> = { on: [], off: [] };
  for (const round of [1, 2]) {
    rounds.off.push((await measure({ ...unlimited, name: `API, limits off (${round})` }, getById, auth)).rps);
    rounds.on.push((await measure({ ...api, name: `API, limits on (${round})` }, getById, auth)).rps);
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [limitsOn, limitsOff] = [mean(rounds.on), mean(rounds.off)];
  const limitsCost =
    `Rate limits' cost on get by id (off, on, off, on; means): ${limitsOn.toFixed(0)} req/s with the limits on, ${limitsOff.toFixed(0)} with ` +
    `\`RATE_LIMITS=off\`: ${((1 - limitsOn / limitsOff) * 100).toFixed(1)} % fewer with them (rounds: on ${rounds.on.map((v) => v.toFixed(0)).join(', ')}; off ${rounds.off.map((v) => v.toFixed(0)).join(', ')}).`;
  const apiRows: string[] = [];
  for (const scenario of moreScenarios({
    url: api.url,
    secret: keys.secret_test.token,
    publishable: keys.publishable_test.token,
    variantIds,
    completions: COMPLETIONS,
    connections: CONNECTIONS,
    log,
  })) {
    log(`Measuring ${scenario.name}...`);
    const prepared = await scenario.prepare();
    const headers = { authorization: `Bearer ${prepared.token}` };
    const amount = prepared.amount;
    if (prepared.warmUp) await measureAmount(api, prepared.request, headers, prepared.warmUp);
    // A scenario that consumes what it requests (a draft per completion) splits it between its two rounds.
    const [ours] = await alternating([
      {
        label: 'API',
        run: () =>
          amount
            ? measureAmount(api, prepared.request, headers, Math.floor(amount / 2))
            : measure({ ...api, name: 'API' }, prepared.request, headers),
      },
    ]);
    peakRss = Math.max(peakRss, ours.rssMb);
    apiRows.push(
      `| ${scenario.name} | ${roundsCell(ours)} | ${ours.p50} | ${ours.p99} | ${ours.rssMb} | ${((ours.rps / getByIdRps) * 100).toFixed(0)} % | ${loadsCell(ours)} |` +
        (ours.errors > 0 ? ` errors: ${ours.errors}` : ''),
    );
  }
  // Variants no draft of the completion scenarios buys (those take the first ones and the last few), if any are left.
  const spareVariants = (all: string[]) => {
    const spare = all.slice(2 * (COMPLETIONS + COMPLETION_WARM_UP), -SHARED_VARIANTS);
    return spare.length >= 2 ? spare : all;
  };
  const checkouts =
    CHECKOUTS > 0
      ? await measureCheckouts({
          url: api.url,
          secret: keys.secret_test.token,
          publishable: keys.publishable_test.token,
          variantIds: spareVariants(variantIds),
          journeys: CHECKOUTS,
          clients: CONNECTIONS,
          pid: api.child.pid!,
          getByIdRps,
          log,
        })
      : undefined;
  if (checkouts) {
    apiRows.push(...checkouts.rows);
    peakRss = Math.max(peakRss, checkouts.rssMb);
  }
  const table = [
    `\`npm run bench -- --customers ${CUSTOMERS} --duration ${DURATION} --connections ${CONNECTIONS}\`: ` +
      `${CUSTOMERS.toLocaleString('en')} customers, ${CONNECTIONS} connections, ${DURATION} s per measurement, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    "Each req/s is the mean of two rounds measured alternately (rounds in brackets, ± half their spread; **noisy** when they differ by more than 15 %); latencies are the rounds' means; the load average is the 1-minute figure before each API round.",
    '',
    'Both servers run their statements as named prepared statements; the column "database work" says where the two do the same work and where not (the API keeps list totals until the table changes; the bare baseline counts on every page). Compare the ratios of the rows marked "same"; the others measure the API\'s caches as much as its code.',
    '',
    '| scenario | API req/s | API p50 ms | API p99 ms | API peak RSS MB | baseline req/s | baseline p50 ms | baseline p99 ms | API / baseline | database work (API / baseline) | of get by id | load before |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|',
    ...rows,
    '',
    `Without a baseline (${PRODUCTS.toLocaleString('en')} products with two variants each; each completion scenario completes ${COMPLETIONS.toLocaleString('en')} drafts of two line items, one request each, after ${COMPLETION_WARM_UP} not measured: first each draft on variants of its own, so no two completions compete for stock; then contended, every draft on two of ${SHARED_VARIANTS} shared variants, so completions wait for each other's row locks):`,
    '',
    '| scenario | API req/s | API p50 ms | API p99 ms | API peak RSS MB | of get by id | load before |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...apiRows,
    '',
    ...(checkouts ? [...checkouts.text, ''] : []),
    `Peak RSS of the API process over every scenario: ${peakRss} MB (${peakRss <= 250 ? 'within' : '**over**'} the 250 MB bound).`,
    '',
    limitsCost,
  ].join('\n');
  log(`\n${table}\n`);
  const searchTable = SEARCH_PRODUCTS > 0 ? await measureSearch(databaseUrl) : '';
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- results:start -->\n${table}\n${searchTable ? `\n${searchTable}\n` : ''}<!-- results:end -->`;
    writeFileSync(readme, text.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, block));
    log('Wrote the tables into bench/README.md.');
  }
} finally {
  for (const server of servers) server.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await embedded?.stop();
}
process.exit(0);
