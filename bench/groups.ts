/**
 * `npm run bench:groups` (`-- --help` for the options): seeds a project with 100k customers (tags, companies,
 * order figures and dates, addresses), creates manual and automatic customer groups, and measures what reads
 * membership: member_count (the service's count query, in process), GET /v1/customer-groups/{id},
 * GET /v1/customers?group_id=, GET /v1/customer-groups?customer_id= and the group list. Requests run one at a
 * time (latency, not throughput). Prints the table and the query plan of the three-condition count, and
 * writes both into bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions, createBenchProject, startReadBenchServer } from './kit.js';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { createDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import type { components } from '../src/generated/openapi.js';
import { groupViews } from '../src/modules/customer-groups/membership.js';
import { seedCustomers } from '../src/seed/customers.seed.js';

type GroupCreate = components['schemas']['CustomerGroupCreate'];

const root = path.resolve(import.meta.dirname, '..');
const USAGE = `Usage: npm run bench:groups -- [--customers N] [--runs N] [--no-write]

Options:
  --customers N   customers to seed (default 100000)
  --runs N        measured runs per scenario, after 5 warm-up runs (default 50)
  --no-write      print the results without writing them into bench/README.md
  -h, --help      show this help

BENCH_DATABASE_URL: measure on this PostgreSQL instead of a throwaway embedded one.`;

const options = benchOptions(USAGE, { customers: 100000, runs: 50 });
const log = (line: string) => process.stdout.write(`${line}\n`);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/**
 * The groups measured; the first is the one with a bound (member_count under 50 ms at 100k customers,
 * bench/README.md): an automatic group with three conditions.
 */
const GROUPS: Array<{ label: string; body: GroupCreate }> = [
  {
    label: 'automatic, 3 conditions, all (total_spent, order_count, tag)',
    body: {
      name: 'VIP',
      type: 'automatic',
      condition_match: 'all',
      conditions: [
        { field: 'total_spent', operator: 'more_than', value: 50_000 },
        { field: 'order_count', operator: 'more_than', value: 5 },
        { field: 'tag', operator: 'is_same_as', value: 'VIP' },
      ],
    },
  },
  {
    label: 'automatic, the same 3 conditions, any',
    body: {
      name: 'VIP any',
      type: 'automatic',
      condition_match: 'any',
      conditions: [
        { field: 'total_spent', operator: 'more_than', value: 50_000 },
        { field: 'order_count', operator: 'more_than', value: 5 },
        { field: 'tag', operator: 'is_same_as', value: 'VIP' },
      ],
    },
  },
  {
    label: 'automatic, all (country, last_order_date, status)',
    body: {
      name: 'Recent German',
      type: 'automatic',
      conditions: [
        { field: 'country', operator: 'is_same_as', value: 'DE' },
        { field: 'last_order_date', operator: 'is_after', value: daysAgo(90) },
        { field: 'status', operator: 'is_same_as', value: 'active' },
      ],
    },
  },
  {
    label: 'automatic, all (company, city is_not, customer_added_date)',
    body: {
      name: 'Company buyers',
      type: 'automatic',
      conditions: [
        { field: 'company', operator: 'is_same_as', value: 'company 15' },
        { field: 'city', operator: 'is_not', value: 'Berlin' },
        { field: 'customer_added_date', operator: 'is_before', value: daysAgo(30) },
      ],
    },
  },
  {
    label: 'automatic, all negations (tag is_not, status is_not, total_spent less_than)',
    body: {
      name: 'Everyone else',
      type: 'automatic',
      conditions: [
        { field: 'tag', operator: 'is_not', value: 'vip' },
        { field: 'status', operator: 'is_not', value: 'inactive' },
        { field: 'total_spent', operator: 'less_than', value: 20_000 },
      ],
    },
  },
  { label: 'manual, 10,000 members', body: { name: 'Manual ten thousand' } },
];

/** Adds companies, order dates, more tags and addresses to the seeded customers (deterministic from their number). */
async function enrichCustomers(db: PrismaClient, projectId: string): Promise<void> {
  await db.$executeRaw`
    UPDATE customers c SET
      company = CASE WHEN n % 5 = 0 THEN 'Company ' || (n % 100) END,
      first_order_at = CASE WHEN order_count > 0 THEN now() - make_interval(days => (30 + (n::bigint * 7919) % 700)::int) END,
      last_order_at = CASE WHEN order_count > 0 THEN now() - make_interval(days => ((n::bigint * 104729) % 30 + (n % 4) * 60)::int) END,
      tags = tags || CASE WHEN n % 11 = 0 THEN ARRAY['wholesale'] ELSE ARRAY[]::text[] END || CASE WHEN n % 13 = 0 THEN ARRAY['Newsletter'] ELSE ARRAY[]::text[] END
    FROM (SELECT id, substring(email FROM 'customer(\\d+)@')::int AS n FROM customers WHERE project_id = ${projectId}) s
    WHERE c.id = s.id`;
  const cities = ['Berlin', 'Hamburg', 'Munich', 'Paris', 'Lyon', 'London', 'Leeds', 'Madrid', 'Rome', 'Vienna'];
  const countries = ['DE', 'DE', 'DE', 'FR', 'FR', 'GB', 'GB', 'ES', 'IT', 'AT'];
  await db.$executeRaw`
    INSERT INTO customer_addresses (id, customer_id, line1, city, country, is_default, created_at, updated_at)
    SELECT 'addr_' || substr(md5(id || k::text), 1, 26), id, n || ' Main Street', (${cities}::text[])[1 + (n + k) % 10],
           (${countries}::text[])[1 + (n + k) % 10], k = 0, now(), now()
    FROM (SELECT id, substring(email FROM 'customer(\\d+)@')::int AS n FROM customers WHERE project_id = ${projectId}) s,
         generate_series(0, 1) AS k
    WHERE n % 10 < 6 AND (k = 0 OR n % 10 = 0)`;
}

interface Timing {
  p50: number;
  p95: number;
  max: number;
}

/** Runs `work` 5 times to warm up, then `runs` times one after the other; milliseconds. */
async function time(work: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < 5; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), max: samples.at(-1)! };
}

const ms = (t: Timing) => `${t.p50.toFixed(1)} / ${t.p95.toFixed(1)} / ${t.max.toFixed(1)}`;

const loadBefore = os.loadavg()[0].toFixed(1);
const dataDir = path.join(os.tmpdir(), `commerce-bench-groups-${process.pid}`);
const embedded = process.env.BENCH_DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dir: dataDir, persistent: false, whenInUse: 'refuse' });
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;
let server: { url: string; child: ChildProcess } | undefined;
try {
  log(`Database: ${embedded ? 'throwaway embedded PostgreSQL' : 'BENCH_DATABASE_URL'}; migrating.`);
  await migrate(databaseUrl);
  const db = createDatabase(databaseUrl);
  const { project, keys } = await createBenchProject(db, 'Groups Benchmark Store');
  const started = Date.now();
  await seedCustomers(db, project.id, options.customers, {
    onProgress: (done, total) => log(`  seeded ${done.toLocaleString('en')} / ${total.toLocaleString('en')} customers`),
  });
  await enrichCustomers(db, project.id);
  // The enrichment's UPDATE leaves a dead copy of every row: rewrite the table as if it had been loaded once.
  await db.$executeRawUnsafe('VACUUM FULL ANALYZE customers');
  await db.$executeRawUnsafe('VACUUM ANALYZE customer_addresses');
  log(`Seeded and enriched in ${((Date.now() - started) / 1000).toFixed(1)} s.`);

  server = await startReadBenchServer(databaseUrl);
  const headers = { authorization: `Bearer ${keys.secret_test.token}`, 'content-type': 'application/json' };
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${server!.url}${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { data: any };
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  const groups = [];
  for (const { body } of GROUPS) groups.push((await call('POST', '/v1/customer-groups', body)).data);
  const manual = groups.at(-1);
  await db.$executeRaw`
    INSERT INTO customer_group_members (group_id, customer_id)
    SELECT ${manual.id}, id FROM customers WHERE project_id = ${project.id} ORDER BY md5(id) LIMIT 10000`;
  await db.$executeRawUnsafe('ANALYZE customer_group_members');
  const rows = await db.customerGroup.findMany({ where: { projectId: project.id }, orderBy: { createdAt: 'asc' } });
  const someCustomer = (
    await db.customer.findFirstOrThrow({
      where: { projectId: project.id, tags: { has: 'vip' }, totalSpent: { gt: 60_000 } },
    })
  ).id;

  // member_count as the service computes it, on a client that logs its SQL (for the plan below).
  const queries: Array<{ query: string; params: string }> = [];
  const logged = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }),
    log: [{ emit: 'event', level: 'query' }],
  });
  logged.$on('query', (event) => queries.push({ query: event.query, params: event.params }));

  const table = [
    '| group | members | member_count (service) p50 / p95 / max ms | GET group p50 / p95 ms | GET customers?group_id (25, total) p50 / p95 ms |',
    '|---|---:|---:|---:|---:|',
  ];
  let plan = '';
  for (const [i, row] of rows.entries()) {
    const { label } = GROUPS[i];
    log(`Measuring ${label}...`);
    const [view] = await groupViews({ db }, [row], false);
    const count = await time(() => groupViews({ db }, [row], false));
    const read = await time(() => call('GET', `/v1/customer-groups/${row.id}`));
    const members = await time(() => call('GET', `/v1/customers?group_id=${row.id}&limit=25`));
    table.push(
      `| ${label} | ${view.memberCount.toLocaleString('en')} | ${ms(count)} | ${read.p50.toFixed(1)} / ${read.p95.toFixed(1)} | ${members.p50.toFixed(1)} / ${members.p95.toFixed(1)} |`,
    );
    if (i === 0) {
      queries.length = 0;
      await groupViews({ db: logged }, [row], false);
      const { query, params } = queries.find((q) => q.query.includes('COUNT'))!;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const explained = await client.query(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${query}`,
        JSON.parse(params),
      );
      await client.end();
      plan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    }
  }
  await logged.$disconnect();

  log('Measuring the group list and the customer_id filter...');
  const list = await time(() => call('GET', '/v1/customer-groups?limit=25'));
  const byCustomer = await time(() => call('GET', `/v1/customer-groups?customer_id=${someCustomer}`));
  await db.$disconnect();

  const header =
    `\`npm run bench:groups -- --customers ${options.customers} --runs ${options.runs}\`: ${options.customers.toLocaleString('en')} customers ` +
    `(about 60 % with addresses, 20 % with a company, a seventh tagged vip), ${options.runs} sequential runs after 5 warm-up runs, ` +
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}) shared with other work (load average ${loadBefore} before, ${os.loadavg()[0].toFixed(1)} after), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`;
  const text = [
    header,
    '',
    ...table,
    '',
    `GET /v1/customer-groups?limit=25 (${GROUPS.length} groups, each with member_count): p50 ${list.p50.toFixed(1)} ms, p95 ${list.p95.toFixed(1)} ms. ` +
      `GET /v1/customer-groups?customer_id= (automatic groups decided in memory): p50 ${byCustomer.p50.toFixed(1)} ms, p95 ${byCustomer.p95.toFixed(1)} ms.`,
    '',
    "Plan of the first group's member_count (EXPLAIN ANALYZE of the SQL Prisma sends):",
    '',
    '```',
    plan,
    '```',
  ].join('\n');
  log(`\n${text}\n`);
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const current = readFileSync(readme, 'utf8');
    writeFileSync(
      readme,
      current.replace(
        /<!-- groups:start -->[\s\S]*<!-- groups:end -->/,
        `<!-- groups:start -->\n${text}\n<!-- groups:end -->`,
      ),
    );
    log('Wrote the results into bench/README.md.');
  }
} finally {
  server?.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await embedded?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
