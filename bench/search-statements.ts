/**
 * `npm run bench:search-statements -- --products N --runs R [--dir D]`: the search and suggest mixes of
 * `npm run bench:search`, run one at a time on one connection through the service (answer cache off), R
 * times each: the minimum and the median per query. On a busy machine the minimum is what the work costs;
 * wall-clock percentiles under concurrency say more about the neighbours. `--dir` keeps the seeded database
 * between runs (seeded once).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { searchCatalog } from '../src/modules/search/search.service.js';
import { suggest } from '../src/modules/search/suggest.service.js';
import { flushSearchLog } from '../src/modules/search/index.js';
import type { Ctx } from '../src/shared/context.js';
import { createLogger } from '../src/shared/logger.js';
import { SEARCHES, SUGGESTS, seedSearchCatalog } from './search-scenarios.js';

const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '7' },
    dir: { type: 'string' },
  },
});
const PRODUCTS = Number(values.products);
const RUNS = Number(values.runs);
const dir = values.dir ?? path.join(os.tmpdir(), `commerce-bench-statements-${PRODUCTS}`);
const fresh = !existsSync(path.join(dir, 'pg'));
const embedded = await startEmbeddedPostgres({ dir, persistent: true, whenInUse: 'refuse' });
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  let project = await db.project.findFirst({ where: { name: 'Search statements' } });
  if (!project || fresh) {
    const created = await createProject(db, { name: 'Search statements' });
    project = await db.project.findUniqueOrThrow({ where: { id: created.project.id } });
    const started = Date.now();
    await seedSearchCatalog(db, project.id, PRODUCTS);
    console.log(`Seeded ${PRODUCTS.toLocaleString('en')} products in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  }
  const ctx = {
    db,
    project,
    actor: { kind: 'api_key', id: 'key_bench', keyType: 'publishable' },
    mode: 'test',
    requestId: 'bench',
    log: createLogger('silent'),
    jobs: undefined as never,
  } as Ctx;
  const time = async (run: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await run();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { min: times[0], median: times[Math.floor(times.length / 2)] };
  };
  const lines: string[] = [];
  let sumMin = 0;
  for (const path of SEARCHES) {
    const params = Object.fromEntries(new URL(path, 'http://x').searchParams);
    const query = {
      ...params,
      ...(params.in_stock ? { in_stock: params.in_stock === 'true' } : {}),
      ...(params.price_max ? { price_max: Number(params.price_max) } : {}),
    } as Parameters<typeof searchCatalog>[1];
    let total = 0;
    const t = await time(async () => {
      total = (await searchCatalog(ctx, query, { cache: false })).products.total;
    });
    sumMin += t.min;
    lines.push(
      `| search ${params.q}${path.includes('&') ? ` (${path.split('&').slice(1).join('&')})` : ''} | ${total} | ${t.min.toFixed(1)} | ${t.median.toFixed(1)} |`,
    );
  }
  let suggestMin = 0;
  for (const path of SUGGESTS) {
    const q = new URL(path, 'http://x').searchParams.get('q')!;
    const t = await time(() => suggest(ctx, q, 5, { cache: false }));
    suggestMin += t.min;
    lines.push(`| suggest ${q} | | ${t.min.toFixed(1)} | ${t.median.toFixed(1)} |`);
  }
  await flushSearchLog();
  console.log(
    [
      `${PRODUCTS.toLocaleString('en')} products, ${RUNS} runs each, one connection, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')}:`,
      '',
      '| query | total | min ms | median ms |',
      '|---|---:|---:|---:|',
      ...lines,
      `| **sum of the searches** | | ${sumMin.toFixed(1)} | |`,
      `| **sum of the suggests** | | ${suggestMin.toFixed(1)} | |`,
    ].join('\n'),
  );
  await db.$disconnect();
} finally {
  await embedded.stop();
}
