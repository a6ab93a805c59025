/**
 * `npm run bench:price-lists` (`-- --help` for the options): seeds a storefront project with 10,000 products
 * (two variants each), a price list of 10,000 entries (one per product's small variant, tiers on a tenth),
 * a customer group on a second list, and three signed-in shoppers: one on the big list (own key), one in the
 * group, one without lists. Measures the storefront product list and product read with the publishable key
 * alone (no prices resolved) and with each shopper's token (customer_price resolved), the callers taking turns
 * request by request, in rounds, so machine noise falls on all alike. Requests run one at a time (latency, not throughput). Prints the
 * table and writes it into bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions, buildServer, startCompiledServer, stopServer } from './kit.js';
import { createDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { seedCatalog } from '../src/seed/catalog.seed.js';

const root = path.resolve(import.meta.dirname, '..');
const USAGE = `Usage: npm run bench:price-lists -- [--products N] [--runs N] [--rounds N] [--no-write]

Options:
  --products N    products to seed, two variants each; the price list holds one price per product (default 10000)
  --runs N        measured requests per scenario and round, after 5 warm-up requests (default 40)
  --rounds N      alternating rounds over all scenarios (default 3)
  --no-write      print the results without writing them into bench/README.md
  -h, --help      show this help

BENCH_DATABASE_URL: measure on this PostgreSQL instead of a throwaway embedded one.
BENCH_CPU_PROF_DIR: the API process writes its CPU profile (node --cpu-prof) into this directory.`;

const options = benchOptions(USAGE, { products: 10000, runs: 40, rounds: 3 });
const log = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Runs each of `works` 5 times to warm up, then `runs` times in turn, one request at a time (the first, the
 * second, ..., the first again), so a drift of the machine or the process during the round falls on all of
 * them alike; the samples of each in milliseconds.
 */
async function sampleInTurn(works: Array<() => Promise<unknown>>): Promise<number[][]> {
  for (let i = 0; i < 5; i++) for (const work of works) await work();
  const samples = works.map((): number[] => []);
  for (let i = 0; i < options.runs; i++) {
    for (const [index, work] of works.entries()) {
      const start = process.hrtime.bigint();
      await work();
      samples[index].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return samples;
}

const quantile = (samples: number[], q: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

const loadBefore = os.loadavg()[0].toFixed(1);
const dataDir = path.join(os.tmpdir(), `commerce-bench-price-lists-${process.pid}`);
const embedded = process.env.BENCH_DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dir: dataDir, persistent: false, whenInUse: 'refuse' });
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;
let server: { url: string; child: ChildProcess } | undefined;
try {
  log(`Database: ${embedded ? 'throwaway embedded PostgreSQL' : 'BENCH_DATABASE_URL'}; migrating.`);
  await migrate(databaseUrl);
  const db = createDatabase(databaseUrl);
  const { project, keys } = await createProject(db, {
    name: 'Price Lists Benchmark Store',
    domain: 'bench-shop.example.com',
    domain_verified: true,
  });
  await db.project.update({
    where: { id: project.id },
    data: {
      rateLimitPerMinute: 1_000_000,
      storefrontRateLimitPerMinute: 1_000_000,
      monthlyQuota: 1_000_000_000,
      storefrontClientSharePercent: 100,
    },
  });
  // Batches small enough to commit within the default 5 s transaction time-out on a busy machine.
  await seedCatalog(db, project.id, options.products, {
    batchSize: 1000,
    onProgress: (done, total) => log(`  seeded ${done.toLocaleString('en')} / ${total.toLocaleString('en')} products`),
  });

  // The compiled server as npm start runs it (dist/, its node options): measured as deployed, not through tsx.
  buildServer();
  server = await startCompiledServer(
    { DATABASE_URL: databaseUrl, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' },
    process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [],
  );
  const call = async (route: string, init: { method?: string; headers: Record<string, string>; body?: unknown }) => {
    const response = await fetch(`${server!.url}${route}`, {
      method: init.method ?? 'GET',
      headers: { ...init.headers, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const json = (await response.json()) as { data: any };
    if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const secret = { authorization: `Bearer ${keys.secret_test.token}` };
  const publishable = { 'x-api-key': keys.publishable_test.token };

  // The big list: one price per product's small variant (90 % of its price), a 10-unit tier on every tenth.
  const big = (
    await call('/v1/price-lists', {
      method: 'POST',
      headers: secret,
      body: { slug: 'wholesale', name: 'Wholesale', currency: project.currency },
    })
  ).data;
  const smalls = await db.variant.findMany({
    where: { projectId: project.id, position: 0 },
    select: { id: true, price: true },
    orderBy: { id: 'asc' },
  });
  for (let start = 0; start < smalls.length; start += 1000) {
    const prices = smalls
      .slice(start, start + 1000)
      .map((v) => ({ variant_id: v.id, amount: Math.floor(v.price * 0.9) }));
    await call(`/v1/price-lists/${big.id}/prices`, { method: 'PUT', headers: secret, body: { prices } });
  }
  const tiers = smalls
    .filter((_, i) => i % 10 === 0)
    .map((v) => ({ variant_id: v.id, min_quantity: 10, amount: Math.floor(v.price * 0.8) }));
  for (let start = 0; start < tiers.length; start += 1000) {
    await call(`/v1/price-lists/${big.id}/prices`, {
      method: 'PUT',
      headers: secret,
      body: { prices: tiers.slice(start, start + 1000) },
    });
  }
  const vip = (
    await call('/v1/price-lists', {
      method: 'POST',
      headers: secret,
      body: { slug: 'vip', name: 'VIP', currency: project.currency },
    })
  ).data;
  await call(`/v1/price-lists/${vip.id}/prices`, {
    method: 'PUT',
    headers: secret,
    body: { prices: smalls.slice(0, 1000).map((v) => ({ variant_id: v.id, amount: Math.floor(v.price * 0.85) })) },
  });
  const group = (
    await call('/v1/customer-groups', {
      method: 'POST',
      headers: secret,
      body: { name: 'VIP', active_price_key: 'vip' },
    })
  ).data;
  await db.$executeRawUnsafe('ANALYZE price_list_prices');
  const entries = await db.priceListPrice.count({ where: { priceListId: big.id } });
  log(`Price list "wholesale": ${entries.toLocaleString('en')} prices; "vip": 1,000.`);

  const shopper = async (name: string) => {
    const session = (
      await call('/v1/auth/register', {
        method: 'POST',
        headers: publishable,
        body: {
          email: `${name}@bench-shop.example.com`,
          password: 'Winter-Trail-2026',
          first_name: 'Bench',
          last_name: name,
        },
      })
    ).data;
    return {
      id: session.customer.id as string,
      headers: { ...publishable, authorization: `Bearer ${session.access_token}` },
    };
  };
  const onList = await shopper('wholesale');
  await call(`/v1/customers/${onList.id}`, {
    method: 'PATCH',
    headers: secret,
    body: { active_price_key: 'wholesale' },
  });
  const inGroup = await shopper('grouped');
  await call(`/v1/customer-groups/${group.id}/members`, {
    method: 'POST',
    headers: secret,
    body: { customer_ids: [inGroup.id] },
  });
  const plain = await shopper('plain');

  const newest = await db.product.findFirstOrThrow({
    where: { projectId: project.id },
    orderBy: { createdAt: 'desc' },
  });
  const someProduct = newest.id;
  // A search of one word of a product's title: a page of 20 hits (customer prices resolved for each).
  const searchWord = encodeURIComponent(newest.title.split(/\s+/)[0].toLowerCase());
  const who = [
    { label: 'publishable key alone (no prices resolved)', headers: publishable },
    { label: 'shopper on the 10,000-entry list (own key)', headers: onList.headers },
    { label: 'shopper in a group on a 1,000-entry list', headers: inGroup.headers },
    { label: 'shopper without lists', headers: plain.headers },
  ];
  const routes = [
    { label: 'GET /v1/products?limit=25', route: '/v1/products?limit=25' },
    { label: 'GET /v1/products/{id}', route: `/v1/products/${someProduct}` },
    { label: 'GET /v1/search (20 hits)', route: `/v1/search?q=${searchWord}&limit=20` },
  ];
  const samples = new Map<string, number[]>();
  for (let round = 1; round <= options.rounds; round++) {
    log(`Round ${round} of ${options.rounds}...`);
    for (const { label: routeLabel, route } of routes) {
      const taken = await sampleInTurn(
        who.map(
          ({ headers }) =>
            () =>
              call(route, { headers }),
        ),
      );
      for (const [index, { label }] of who.entries()) {
        const key = `${routeLabel}\u0000${label}`;
        samples.set(key, [...(samples.get(key) ?? []), ...taken[index]]);
      }
    }
  }
  await db.$disconnect();

  const table = ['| request | caller | p50 ms | p95 ms | p50 vs publishable key alone |', '|---|---|---:|---:|---:|'];
  for (const { label: routeLabel } of routes) {
    const base = quantile(samples.get(`${routeLabel}\u0000${who[0].label}`)!, 0.5);
    for (const { label } of who) {
      const s = samples.get(`${routeLabel}\u0000${label}`)!;
      const p50 = quantile(s, 0.5);
      const change =
        label === who[0].label ? '' : `${p50 >= base ? '+' : ''}${(((p50 - base) / base) * 100).toFixed(1)} %`;
      table.push(`| ${routeLabel} | ${label} | ${p50.toFixed(1)} | ${quantile(s, 0.95).toFixed(1)} | ${change} |`);
    }
  }
  const header =
    `\`npm run bench:price-lists -- --products ${options.products} --runs ${options.runs} --rounds ${options.rounds}\`: ` +
    `${options.products.toLocaleString('en')} products with two variants, a price list of ${entries.toLocaleString('en')} prices in use, ` +
    `${options.runs * options.rounds} sequential requests per row (the four callers of a request taking turns, ${options.rounds} rounds, 5 warm-up requests each), ` +
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}) shared with other work (load average ${loadBefore} before, ${os.loadavg()[0].toFixed(1)} after), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`;
  const text = [header, '', ...table].join('\n');
  log(`\n${text}\n`);
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const current = readFileSync(readme, 'utf8');
    writeFileSync(
      readme,
      current.replace(
        /<!-- price-lists:start -->[\s\S]*<!-- price-lists:end -->/,
        `<!-- price-lists:start -->\n${text}\n<!-- price-lists:end -->`,
      ),
    );
    log('Wrote the results into bench/README.md.');
  }
} finally {
  if (server) await stopServer(server);
  await embedded?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
