/**
 * `npm run bench:completion-ab -- --against <checkout>`: draft-order completion measured on this checkout's compiled
 * server and on another checkout's (an earlier commit in a worktree of its own, built with `npm ci` and `npm run
 * build`), alternating rounds over one database, so a before/after comparison shares the machine's minutes.
 * Each round completes --completions drafts of two line items (made through this checkout's API first) at
 * --connections connections, after COMPLETION_WARM_UP drafts not measured. With `--scenario reads`, each round measures a product read by id and the product
 * list (limit 25) for --duration seconds each after 2 s of warm-up, with the server's CPU time per request.
 * Both checkouts must share the database schema.
 */

import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { seedCatalog } from '../src/seed/catalog.seed.js';
import {
  AMOUNT_SAMPLE_MS,
  buildServer,
  createBenchProject,
  loadAverage,
  processCpuMs,
  startCompiledServer,
  startThrowawayPostgres,
  stopServer,
} from './kit.js';
import { COMPLETION_WARM_UP, moreScenarios } from './more-scenarios.js';

const { values } = parseArgs({
  options: {
    against: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    completions: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '20' },
    products: { type: 'string', default: '10000' },
    // reads: get by id of a product and the product list (limit 25) instead of completion, --duration s each.
    scenario: { type: 'string', default: 'complete' },
    duration: { type: 'string', default: '10' },
  },
});
if (!values.against) {
  console.error(
    'Usage: npm run bench:completion-ab -- --against <checkout> [--rounds N] [--completions N] [--connections N]',
  );
  process.exit(2);
}
const other = path.resolve(values.against);
const rounds = Number(values.rounds);
const completions = Number(values.completions);
const connections = Number(values.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);

const cpuMs = (pid: number | undefined) => processCpuMs(pid) ?? Number.NaN;

const embedded = await startThrowawayPostgres('completion-ab');
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createBenchProject(db, 'Completion Store');
  const products = Number(values.products);
  log(`Seeding ${products} products...`);
  await seedCatalog(db, project.id, products, { batchSize: 1000 });
  await db.$executeRawUnsafe('VACUUM ANALYZE products, variants, inventory_levels');
  const variantIds = (
    await db.variant.findMany({ where: { projectId: project.id }, select: { id: true }, orderBy: { id: 'asc' } })
  ).map((v) => v.id);
  const productIds = (
    await db.product.findMany({ where: { projectId: project.id }, select: { id: true }, take: 2000 })
  ).map((p) => p.id);
  await db.$disconnect();
  buildServer();
  const env = { DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' };
  const results: string[] = [];
  const auth = { authorization: `Bearer ${keys.secret_test.token}` };
  for (let round = 0; round < rounds * 2 && values.scenario === 'reads'; round += 1) {
    const label = round % 2 === 0 ? `other (${path.basename(other)})` : 'this checkout';
    const server = round % 2 === 0 ? await startCompiledServer(env, [], other) : await startCompiledServer(env);
    try {
      for (const [name, request] of [
        [
          'product by id',
          {
            method: 'GET',
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              path: `/v1/products/${productIds[Math.floor(Math.random() * productIds.length)]}`,
            }),
          },
        ],
        ['product list', { method: 'GET', path: '/v1/products?limit=25' }],
      ] as const) {
        const run = (duration: number) =>
          autocannon({
            url: server.url,
            connections,
            duration,
            headers: auth,
            requests: [request],
          });
        await run(2);
        const load = loadAverage();
        const before = cpuMs(server.child.pid);
        const result = await run(Number(values.duration));
        const cpu = (cpuMs(server.child.pid) - before) / result.requests.total;
        const line = `${label}, ${name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${cpu.toFixed(2)} ms of CPU per request, ${result.non2xx} non-2xx (load average ${load} before)`;
        log(line);
        results.push(line);
      }
    } finally {
      await stopServer(server);
    }
  }
  for (let round = 0; round < rounds * 2 && values.scenario === 'complete'; round += 1) {
    const label = round % 2 === 0 ? `other (${path.basename(other)})` : 'this checkout';
    // Each round completes drafts of variants no other round used.
    const offset = round * (completions + COMPLETION_WARM_UP) * 2;
    const maker = await startCompiledServer(env);
    const completion = moreScenarios({
      url: maker.url,
      secret: keys.secret_test.token,
      publishable: keys.publishable_test.token,
      variantIds: variantIds.slice(offset).concat(variantIds.slice(0, offset)),
      completions,
      log,
    }).find((s) => s.name === 'draft-order complete')!;
    const prepared = await completion.prepare();
    await stopServer(maker);
    const server = round % 2 === 0 ? await startCompiledServer(env, [], other) : await startCompiledServer(env);
    try {
      const complete = (amount: number) =>
        autocannon({
          url: server.url,
          connections,
          amount,
          sampleInt: AMOUNT_SAMPLE_MS,
          headers: { authorization: `Bearer ${prepared.token}`, 'content-type': 'application/json' },
          requests: [prepared.request],
        });
      // Warm-up, not measured: the server's first completions compile its code paths and prepare its statements.
      if (prepared.warmUp) await complete(prepared.warmUp);
      const load = loadAverage();
      const result = await complete(prepared.amount ?? completions);
      const line = `${label}: ${(result.requests.total / result.duration).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx (load average ${load} before)`;
      log(line);
      results.push(line);
    } finally {
      await stopServer(server);
    }
  }
  log(`\n${results.join('\n')}`);
} finally {
  await embedded.stop();
}
process.exit(0);
