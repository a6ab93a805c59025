/**
 * `npm run bench:search` (`-- --products N --duration S --connections N --no-write`): seeds a throwaway
 * database with N products (default 100,000) from the search-quality generator's vocabulary, starts the
 * API (src/main.ts, jobs off) and measures GET /v1/search with a mix of one-word, two-word, misspelled,
 * phrase and filtered queries (facets on), then GET /v1/search/suggest, with autocannon: req/s, p50, p95, p99.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { generateCatalog } from '../tests/search-quality/catalog.js';
import { insertFixtureProducts } from '../tests/search-quality/load.js';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' }, duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' }, 'no-write': { type: 'boolean', default: false },
  },
});
const PRODUCTS = Number(values.products);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);

const SEARCHES = [
  'q=shirt', 'q=lamp', 'q=headphones', 'q=walnut', 'q=merino%20sweater', 'q=voltix%20earbuds', 'q=oak%20table',
  'q=sweatr', 'q=hedphones', 'q=jakcet', 'q=%22table%20lamp%22', 'q=%22power%20bank%22', 'q=jacket%20-black',
  'q=shirt&product_type=Shirts', 'q=lamp&in_stock=true', 'q=chair&price_max=10000', 'q=blanket&tag=soft', 'q=hood',
];
const SUGGESTS = ['q=sh', 'q=hea', 'q=lamp', 'q=merin', 'q=voltix%20ea', 'q=jakce', 'q=coff', 'q=w'];

function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`src/main.ts exited with ${code}: ${output}`)));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(base: string, paths: string[], token: string) {
  const run = (duration: number) => new Promise<{ rps: number; latencies: number[]; errors: number }>((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon({
      url: base, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${token}` },
      requests: paths.map((p) => ({ method: 'GET', path: p })),
    }, (error, result) => (error ? reject(error) : resolve({ rps: result.requests.average, latencies, errors: result.non2xx + result.errors })));
    instance.on('response', (_client: unknown, _status: number, _bytes: number, time: number) => latencies.push(time));
  });
  await run(2);
  const result = await run(DURATION);
  const sorted = result.latencies.sort((a, b) => a - b);
  const ms = (p: number) => Math.round(percentile(sorted, p) * 10) / 10;
  return { rps: Math.round(result.rps), p50: ms(50), p95: ms(95), p99: ms(99), errors: result.errors };
}

const dataDir = path.join(os.tmpdir(), `commerce-bench-search-${process.pid}`);
const embedded = await startEmbeddedPostgres({ dir: dataDir, persistent: false, whenInUse: 'refuse', port: await freePort() });
let server: { child: ChildProcess } | undefined;
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createProject(db, { name: 'Search benchmark' });
  await db.project.update({ where: { id: project.id }, data: { rateLimitPerMinute: 10_000_000, monthlyQuota: 1_000_000_000 } });
  const started = Date.now();
  await insertFixtureProducts(db, project.id, 'USD', generateCatalog(PRODUCTS, 7), 5000);
  console.log(`Seeded and indexed ${PRODUCTS.toLocaleString('en')} products in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  await db.$disconnect();
  const api = await startServer({ DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' });
  server = api;
  const token = keys.publishable_test.token;
  const rows = [];
  for (const [name, base, list] of [['search mix (facets on)', '/v1/search?', SEARCHES], ['suggest mix', '/v1/search/suggest?', SUGGESTS]] as const) {
    const m = await measure(api.url, list.map((q) => `${base}${q}`), token);
    rows.push(`| ${name} | ${m.rps} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.errors} |`);
    console.log(rows.at(-1));
  }
  const table = [
    `\`npm run bench:search -- --products ${PRODUCTS} --duration ${DURATION} --connections ${CONNECTIONS}\`: ${PRODUCTS.toLocaleString('en')} products, ${CONNECTIONS} connections, ${DURATION} s per scenario after 2 s warm-up, ${os.cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '', '| scenario | req/s | p50 ms | p95 ms | p99 ms | errors |', '|---|---:|---:|---:|---:|---:|', ...rows,
  ].join('\n');
  console.log(table);
  if (!values['no-write']) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- search-bench:start -->\n${table}\n<!-- search-bench:end -->`;
    writeFileSync(readme, text.includes('<!-- search-bench:start -->')
      ? text.replace(/<!-- search-bench:start -->[\s\S]*<!-- search-bench:end -->/, block)
      : `${text.trimEnd()}\n\n## Search at scale\n\n${block}\n`);
  }
} finally {
  server?.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1000));
  await embedded.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
