/**
 * `npm run search-quality`: loads the generated catalog (2,400 products) into a throwaway database, runs
 * the graded queries through our search (the service, as GET /v1/search runs it), through MiniSearch
 * (configured as its documentation recommends: prefix and fuzzy 0.2 search, its default OR of the words, title boosted) and through
 * Orama (English stemming, typo tolerance 1, title boosted, its default threshold), and prints nDCG@10,
 * P@1 (the share of queries whose first result is relevant) and the share of queries with no result,
 * overall and per kind. `--write` puts the table into bench/README.md; QUALITY_DETAIL=<kind> prints that
 * kind's queries with the grades of each engine's first ten results.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { create as createOrama, insertMultiple, search as searchOrama } from '@orama/orama';
import { createDatabase } from '../../src/db/client.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { createProject } from '../../src/modules/platform/projects.service.js';
import { searchCatalog } from '../../src/modules/search/search.service.js';
import { createSynonymGroup } from '../../src/modules/search/synonyms.service.js';
import { flushSearchLog } from '../../src/modules/search/index.js';
import type { Ctx } from '../../src/shared/context.js';
import { createLogger } from '../../src/shared/logger.js';
import { SYNONYMS, generateCatalog, generateQueries, ndcg } from './catalog.js';
import { insertFixtureProducts } from './load.js';

const COUNT = Number(process.env.QUALITY_PRODUCTS ?? 2400);
const catalog = generateCatalog(COUNT);
const queries = generateQueries(catalog);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'search-quality-'));
const embedded = await startEmbeddedPostgres({
  dir: dataDir,
  persistent: false,
  whenInUse: 'refuse',
});
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project: resource, keys } = await createProject(db, { name: 'Search quality' });
  const project = await db.project.findUniqueOrThrow({ where: { id: resource.id } });
  const ctx = {
    db,
    project,
    actor: { kind: 'api_key', id: keys.secret_test.id, keyType: 'secret' },
    mode: 'test',
    requestId: 'quality',
    log: createLogger('silent'),
    jobs: undefined as never,
  } as Ctx;
  const ids = await insertFixtureProducts(db, project.id, project.currency, catalog);
  for (const group of SYNONYMS) await createSynonymGroup(ctx, group);

  const mini = new MiniSearch({
    fields: ['title', 'productType', 'vendor', 'tags', 'variants', 'description'],
    storeFields: ['index'],
    searchOptions: { boost: { title: 3, productType: 2, vendor: 2 }, prefix: true, fuzzy: 0.2 },
  });
  mini.addAll(
    catalog.map((p, index) => ({ id: index, index, ...p, tags: p.tags.join(' '), variants: p.variants.join(' ') })),
  );
  const orama = createOrama({
    schema: {
      title: 'string',
      productType: 'string',
      vendor: 'string',
      tags: 'string',
      variants: 'string',
      description: 'string',
      index: 'number',
    } as const,
    components: { tokenizer: { stemming: true } },
  });
  await insertMultiple(
    orama,
    catalog.map((p, index) => ({
      title: p.title,
      productType: p.productType,
      vendor: p.vendor,
      tags: p.tags.join(' '),
      variants: p.variants.join(' '),
      description: p.description,
      index,
    })),
  );
  const indexOf = new Map(ids.map((id, i) => [id, i]));

  type Score = { ndcg: number; first: number; none: number };
  const score = (ranked: number[], grades: number[]): Score => ({
    ndcg: ndcg(ranked, grades),
    first: ranked[0] > 0 ? 1 : 0,
    none: ranked.length === 0 ? 1 : 0,
  });
  const rows: Array<{ kind: string; ours: Score; mini: Score; orama: Score }> = [];
  const started = performance.now();
  for (const query of queries) {
    const grades = catalog.map(query.grade);
    const ours = (await searchCatalog(ctx, { q: query.q, limit: 10, facets: false })).products.data.map(
      (p) => grades[indexOf.get(p.id)!],
    );
    // MiniSearch has no phrase or exclusion syntax: it gets the words (as a storefront would pass them).
    const words = query.q
      .replace(/"/g, '')
      .split(/\s+/)
      .filter((w) => !w.startsWith('-'))
      .join(' ');
    const theirs = mini
      .search(words)
      .slice(0, 10)
      .map((r) => grades[r.index as number]);
    const oramaHits = await searchOrama(orama, {
      term: words,
      properties: ['title', 'productType', 'vendor', 'tags', 'variants', 'description'],
      boost: { title: 3, productType: 2, vendor: 2 },
      tolerance: 1,
      limit: 10,
    });
    const oramaGrades = oramaHits.hits.map((h) => grades[h.document.index]);
    rows.push({
      kind: query.kind,
      ours: score(ours, grades),
      mini: score(theirs, grades),
      orama: score(oramaGrades, grades),
    });
    if (process.env.QUALITY_DETAIL === query.kind) {
      const row = rows.at(-1)!;
      console.log(
        `${query.q} | ours ${row.ours.ndcg.toFixed(3)} [${ours.join('')}] | mini ${row.mini.ndcg.toFixed(3)} [${theirs.join('')}] | orama ${row.orama.ndcg.toFixed(3)}`,
      );
    }
  }
  const elapsed = performance.now() - started;
  await flushSearchLog();
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / Math.max(1, list.length);
  const engines = ['ours', 'mini', 'orama'] as const;
  const cells = (list: typeof rows, engine: (typeof engines)[number]) =>
    `${mean(list.map((r) => r[engine].ndcg)).toFixed(3)} | ${(100 * mean(list.map((r) => r[engine].first))).toFixed(0)} % | ${(100 * mean(list.map((r) => r[engine].none))).toFixed(1)} %`;
  const line = (label: string, list: typeof rows) =>
    `| ${label} | ${list.length} | ${engines.map((engine) => cells(list, engine)).join(' | ')} |`;
  const kinds = [...new Set(rows.map((r) => r.kind))];
  const table = [
    `\`npm run search-quality\`: ${COUNT.toLocaleString('en')} generated products, ${queries.length} graded queries, MiniSearch 7.2.0 (prefix, fuzzy 0.2, its default OR, title x3), Orama 3.1.18 (stemming, tolerance 1, title x3), ${new Date().toISOString().slice(0, 10)}; our ${queries.length} searches took ${elapsed.toFixed(0)} ms in total. P@1: the first result is relevant; none: no result at all.`,
    '',
    '| queries | n | ours nDCG@10 | ours P@1 | ours none | MiniSearch nDCG@10 | MiniSearch P@1 | MiniSearch none | Orama nDCG@10 | Orama P@1 | Orama none |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    line('**all**', rows),
    ...kinds.map((kind) =>
      line(
        kind,
        rows.filter((r) => r.kind === kind),
      ),
    ),
  ].join('\n');
  console.log(table);
  if (process.argv.includes('--write')) {
    const readme = path.resolve(import.meta.dirname, '../../bench/README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- search-quality:start -->\n${table}\n<!-- search-quality:end -->`;
    writeFileSync(
      readme,
      text.includes('<!-- search-quality:start -->')
        ? text.replace(/<!-- search-quality:start -->[\s\S]*<!-- search-quality:end -->/, block)
        : `${text.trimEnd()}\n\n## Search relevance\n\n${block}\n`,
    );
  }
  await db.$disconnect();
} finally {
  await embedded.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
