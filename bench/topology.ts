/**
 * `npm run bench:topology` (`-- --help` for the options): get by id and create on the API run four ways in one
 * run on one database: one process as `npm start` runs it (named prepared statements), one process whose
 * statements run unnamed (as behind a transaction-mode pooler, but on a direct connection), one process through
 * Debian's PgBouncer in transaction mode (DATABASE_DIRECT_URL beside it), and two processes
 * (WEB_CONCURRENCY=2). The servers take turns, round after round, so a change in the machine's load spreads over
 * all of them. The table is written into bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { seedCustomers } from '../src/seed/customers.seed.js';
import { startPgBouncer } from '../tests/setup/pgbouncer.js';
import { benchOptions, buildServer, createBenchProject, startCompiledServer, startThrowawayPostgres } from './kit.js';

const root = path.resolve(import.meta.dirname, '..');
const USAGE = `Usage: npm run bench:topology -- [--customers N] [--duration S] [--rounds N] [--connections N] [--no-write]

Seeds --customers customers (default 20000), then measures get by id and create (--duration seconds each,
default 5, after 1 s of warm-up, at --connections connections, default 20) on four servers, --rounds times
(default 2) in turn: one process (named statements), one process with unnamed statements, one process through
PgBouncer in transaction mode, two processes (WEB_CONCURRENCY=2). Needs Debian's pgbouncer.`;
const options = benchOptions(USAGE, { customers: 20_000, duration: 5, rounds: 2, connections: 20 });

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

/** The compiled server (as `npm start` runs it) with `env`, named for the table; resolves once it listens. */
async function startServer(name: string, env: Record<string, string>): Promise<Server> {
  return { name, ...(await startCompiledServer({ PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn', ...env })) };
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function run(url: string, request: autocannon.Request, headers: Record<string, string>, duration: number) {
  return autocannon({
    url,
    connections: options.connections,
    duration,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [request],
  });
}

const embedded = await startThrowawayPostgres('bench-topology');
const servers: Server[] = [];
let bouncer: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createBenchProject(db, 'Topology benchmark');
  log(`Seeding ${options.customers.toLocaleString('en')} customers...`);
  await seedCustomers(db, project.id, options.customers);
  await db.$executeRawUnsafe('VACUUM ANALYZE customers');
  const ids = (await db.customer.findMany({ where: { projectId: project.id }, select: { id: true }, take: 2000 })).map(
    (customer) => customer.id,
  );
  await db.$disconnect();
  buildServer();
  bouncer = await startPgBouncer(embedded.url, { poolSize: 20 });
  // The same database under another URL: the process then treats DATABASE_URL as pooled and names no statement.
  const sameDatabase = new URL(embedded.url);
  sameDatabase.searchParams.set('application_name', 'direct');
  servers.push(
    await startServer('1 process', { DATABASE_URL: embedded.url }),
    await startServer('1 process, unnamed statements', {
      DATABASE_URL: embedded.url,
      DATABASE_DIRECT_URL: sameDatabase.href,
    }),
    await startServer('1 process through PgBouncer', {
      DATABASE_URL: bouncer.url(embedded.url),
      DATABASE_DIRECT_URL: embedded.url,
    }),
    await startServer('2 processes (WEB_CONCURRENCY=2)', { DATABASE_URL: embedded.url, WEB_CONCURRENCY: '2' }),
  );
  const auth = { authorization: `Bearer ${keys.secret_test.token}` };
  let created = 0;
  const scenarios: Array<{ name: string; request: autocannon.Request }> = [
    {
      name: 'get by id',
      request: {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/v1/customers/${ids[Math.floor(Math.random() * ids.length)]}` }),
      },
    },
    {
      name: 'create',
      request: {
        method: 'POST',
        path: '/v1/customers',
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            email: `topology${process.pid}.${++created}@example.com`,
            first_name: 'Bench',
            last_name: 'Mark',
          }),
        }),
      },
    },
  ];
  const results = new Map<string, Array<{ rps: number; p50: number; p99: number; errors: number }>>();
  const load = os.loadavg()[0];
  for (const scenario of scenarios) {
    for (let round = 1; round <= options.rounds; round++) {
      for (const server of servers) {
        await run(server.url, scenario.request, auth, 1);
        const result = await run(server.url, scenario.request, auth, options.duration);
        const key = `${scenario.name}\u0000${server.name}`;
        const measured = {
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.non2xx + result.errors,
        };
        results.set(key, [...(results.get(key) ?? []), measured]);
        log(`${scenario.name}, ${server.name}, round ${round}: ${Math.round(measured.rps)} req/s`);
      }
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const rows = [...results].map(([key, runs]) => {
    const [scenario, server] = key.split('\u0000');
    const base = mean(results.get(`${scenario}\u00001 process`)!.map((r) => r.rps));
    const rps = mean(runs.map((r) => r.rps));
    return `| ${scenario} | ${server} | ${Math.round(rps)} | ${Math.round(mean(runs.map((r) => r.p50)))} | ${Math.round(mean(runs.map((r) => r.p99)))} | ${runs.reduce((n, r) => n + r.errors, 0)} | ${Math.round((rps / base) * 100)} % |`;
  });
  const table = [
    `\`npm run bench:topology -- --customers ${options.customers} --duration ${options.duration} --rounds ${options.rounds} --connections ${options.connections}\`: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${load.toFixed(1)} before; means of ${options.rounds} rounds taken in turn.`,
    '',
    '| scenario | server | req/s | p50 ms | p99 ms | errors | vs 1 process |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  log(`\n${table}`);
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- topology:start -->\n${table}\n<!-- topology:end -->`;
    writeFileSync(readme, text.replace(/<!-- topology:start -->[\s\S]*<!-- topology:end -->/, block));
    log('Wrote the table into bench/README.md.');
  }
} finally {
  for (const server of servers) server.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await bouncer?.stop();
  await embedded.stop();
}
