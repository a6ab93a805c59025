import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { generateCatalog } from '../../search-quality/catalog.js';
import { insertFixtureProducts } from '../../search-quality/load.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';
import { SUGGEST_MIN_CLIENTS, suggest } from '../../../src/modules/search/suggest.service.js';
import { suggestIndexOf, suggestIndexReady } from '../../../src/modules/search/suggest-index.js';
import type { Ctx } from '../../../src/shared/context.js';

// The in-process suggest index must answer exactly what the suggest statement answers for the same rows: the
// same suggestions in the same order, with the same types, ids and limits.
const store = useStore();
let ctx: Ctx;

/** The statement's answer: no index, and the planner held to the index scans it uses at scale (rows tied on the index's keys come in row order). */
async function statementAnswers(prefixes: Array<[string, number]>) {
  return ctx.db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
      const answers = [];
      for (const [q, limit] of prefixes)
        answers.push(await suggest({ ...ctx, db: tx as Ctx['db'], caches: undefined }, q, limit));
      return answers;
    },
    { timeout: 300_000 },
  );
}

/** The answers with the index (read only when it is exact: after a change, these are the statement's until it is rebuilt). */
async function indexAnswers(prefixes: Array<[string, number]>) {
  const answers = [];
  for (const [q, limit] of prefixes) answers.push(await suggest(ctx, q, limit, { index: true }));
  return answers;
}

async function expectSameAnswers(prefixes: Array<[string, number]>) {
  const index = await indexAnswers(prefixes);
  const statement = await statementAnswers(prefixes);
  const differing = prefixes
    .map(([q, limit], i) => ({ q, limit, index: index[i], statement: statement[i] }))
    .filter((d) => JSON.stringify(d.index) !== JSON.stringify(d.statement));
  expect(differing).toEqual([]);
  return index;
}

const LIMITS = [5, 1, 10, 3];

/** Typo variants of a word: a swap, a dropped letter, a changed letter, and the first five letters of each. */
function typosOf(word: string): string[] {
  const swap = word.slice(0, 2) + word[3] + word[2] + word.slice(4);
  const drop = word.slice(0, 2) + word.slice(3);
  const change = word.slice(0, 3) + (word[3] === 'x' ? 'y' : 'x') + word.slice(4);
  return [swap, drop, change, swap.slice(0, 5), change.slice(0, 6)];
}

let prefixes: Array<[string, number]>;
let titles: string[];

beforeAll(async () => {
  ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
  const db = store.app.deps.db;
  await insertFixtureProducts(db, store.project.id, 'USD', generateCatalog(1500, 11), 500);
  // Titles shared by several products, titles outside ASCII, SKU words, and collections.
  const shared = [
    ...['Walnut Lamp', 'Walnut Lamp', 'Walnut Lamp', 'Café Crème Mug', 'Кофе Mug', 'Émile Wool Hat'],
    // Letters and signs outside ASCII right before ASCII words: whether those start a word is the locale's call.
    ...['Ωmega Watch', '№5 Candle', 'Кофеmug Deluxe', '½Pint Glass'],
  ];
  for (const [i, title] of shared.entries())
    await createProduct(store.api, { title, variants: [{ title: 'One', price: 100, sku: `SKU-${i}X9` }] });
  for (const title of ['Walnut Home', 'Coffee Corner', 'Wool & Linen', 'Lamps'])
    await store.api.POST('/v1/collections', { body: { title } });
  const stats: Array<[string, number, number, number]> = [
    // query, clients, searches, results the last time
    ['walnut', 5, 40, 3],
    ['walnut lamp', 5, 40, 2],
    ['wlanut', 4, 9, 1], // typo: suggested as corrected
    ['walnt lamp', 3, 3, 1],
    ['lamp for the desk', 3, 8, 1], // a word outside the vocabulary
    ['lamp', 3, 8, 0], // no results the last time
    ['lamps', 2, 90, 4], // too few clients
    ['wool', 6, 6, 3],
    ['wool hat', 6, 6, 3],
    ['wool blocked', 6, 6, 3],
    ['mug <b>', 4, 4, 1], // markup
    ['café mug', 4, 4, 1], // a word the index leaves to the statement
    ['coffee', 4, 4, 1],
  ];
  for (const [query, clients, searches, results] of stats)
    await db.$executeRaw`INSERT INTO search_query_stats (project_id, query, search_count, last_result_count, last_searched_at, client_count)
      VALUES (${store.project.id}, ${query}, ${searches}, ${results}, now(), ${clients})`;
  await store.api.POST('/v1/search/suggestion-blocks', { body: { query: 'wool blocked' } });

  titles = (
    await db.$queryRaw<
      Array<{ title: string }>
    >`SELECT DISTINCT title FROM search_products WHERE project_id = ${store.project.id} ORDER BY title`
  ).map((r) => r.title);
  const words = [...new Set(titles.flatMap((t) => t.toLowerCase().split(/[^a-z]+/)).filter((w) => w.length >= 2))];
  const list = [
    ...'abcdefghijklmnopqrstuvwxyz0123456789'.split(''),
    ...words.flatMap((w) => [w.slice(0, 2), w.slice(0, 3), w, `${w} `]),
    ...words.filter((w) => w.length >= 5).flatMap(typosOf),
    ...titles
      .filter((_, i) => i % 7 === 0)
      .flatMap((t) => {
        const [first, second = '', third = ''] = t.toLowerCase().split(' ');
        return [`${first} ${second.slice(0, 2)}`, `${second} ${third.slice(0, 1)}`, `${third} ${first.slice(0, 3)}`, t];
      }),
    ...[
      'walnut l',
      'wool h',
      'coff',
      'cafe',
      'sku',
      'sku-1',
      '9x',
      'é',
      'ab1c',
      '1e5',
      'каш',
      't-sh',
      'x y z',
      '<b',
      'lamp for',
    ],
  ];
  prefixes = [...new Set(list)].map((q, i) => [q, LIMITS[i % LIMITS.length]]);
  expect(await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS)).toBeDefined();
}, 300_000);

describe('suggest index', () => {
  test('answers every prefix as the statement does: one and two words, typos, past queries, blocks, titles shared by several products', async () => {
    const hits = store.app.deps.caches!.suggestIndexes.hits;
    const answers = await expectSameAnswers(prefixes);
    // The index answered (all but the prefixes with a word it leaves to the statement).
    expect(store.app.deps.caches!.suggestIndexes.hits - hits).toBeGreaterThan(prefixes.length);
    // The comparison covered what it claims to.
    const all = answers.flat();
    expect(all.filter((s) => s.type === 'query').map((s) => s.text)).toEqual(
      expect.arrayContaining(['walnut', 'walnut lamp', 'wool hat']),
    );
    expect(all.map((s) => s.text)).not.toContain('wool blocked');
    expect(all.map((s) => s.text)).not.toContain('wlanut');
    expect(all.some((s) => s.type === 'collection')).toBe(true);
    expect(answers.filter((a) => a.length > 0).length).toBeGreaterThan(prefixes.length / 2);
  }, 300_000);

  test('a write of this process is seen by the next suggestion at once; the rebuilt index answers as the statement does', async () => {
    const renamed = await createProduct(store.api, {
      title: 'Walnut Lantern',
      variants: [{ title: 'One', price: 100 }],
    });
    const gone = await createProduct(store.api, {
      title: 'Walnut Lampshade',
      variants: [{ title: 'One', price: 100 }],
    });
    await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS);
    await store.api.PATCH('/v1/products/{id}', {
      params: { path: { id: renamed.id } },
      body: { title: 'Quokka Lantern' },
    });
    await store.api.DELETE('/v1/products/{id}', { params: { path: { id: gone.id } } });
    const after = await suggest(ctx, 'quok', 5, { index: true });
    expect(after).toEqual([{ type: 'product', id: renamed.id, text: 'Quokka Lantern' }]);
    expect((await suggest(ctx, 'walnut lamps', 10, { index: true })).map((s) => s.text)).not.toContain(
      'Walnut Lampshade',
    );

    await store.api.POST('/v1/search/suggestion-blocks', { body: { query: 'wool hat' } });
    expect((await suggest(ctx, 'wool', 10, { index: true })).map((s) => s.text)).not.toContain('wool hat');

    expect(await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS)).toBeDefined();
    await expectSameAnswers(
      prefixes
        .filter((_, i) => i % 3 === 0)
        .concat([
          ['quok', 5],
          ['walnut lamps', 10],
          ['wool', 10],
        ]),
    );
  }, 300_000);

  test("a write the process did not make (another process's, plain SQL) reaches the index through the change feed", async () => {
    expect(await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS)).toBeDefined();
    const [{ id }] = await ctx.db.$queryRaw<Array<{ id: string }>>`
      SELECT product_id AS id FROM search_products WHERE project_id = ${ctx.project.id} AND title = 'Quokka Lantern'`;
    await ctx.db.$executeRaw`UPDATE products SET title = 'Wombat Lantern' WHERE id = ${id}`;
    await ctx.db.$executeRaw`SELECT search_reindex_products(ARRAY[${id}]::text[])`;
    // The notification makes the index stale: it is not served again until rebuilt.
    const deadline = Date.now() + 5000;
    while ((await suggestIndexOf(ctx, SUGGEST_MIN_CLIENTS)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS)).toBeDefined();
    expect(await suggest(ctx, 'womb', 5, { index: true })).toEqual([{ type: 'product', id, text: 'Wombat Lantern' }]);
    expect(await suggest(ctx, 'quok', 5, { index: true })).toEqual([]);
    await expectSameAnswers([
      ['womb', 5],
      ['quok', 5],
      ['lantern', 10],
      ['w', 10],
    ]);
  }, 60_000);

  test('a write of this process that touches none of its tables suspends the index only until the change feed shows it', async () => {
    const before = await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS);
    expect(before).toBeDefined();
    const created = await store.api.POST('/v1/customers', {
      body: { email: 'index-reader@example.com', first_name: 'Ida', last_name: 'Reader' },
    });
    expect(created.response.status).toBe(201);
    // Not served until the feed shows the write's tables; then served again as it was, without a rebuild.
    expect(await suggestIndexOf(ctx, SUGGEST_MIN_CLIENTS)).toBeUndefined();
    const resumed = await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS);
    expect(resumed?.catalog).toBe(before!.catalog);
    expect(resumed?.past).toBe(before!.past);
    await createProduct(store.api, { title: 'Walnut Ladle', variants: [{ title: 'One', price: 100 }] });
    const after = await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS);
    expect(after).toBeDefined();
    expect(after!.catalog).not.toBe(before!.catalog);
    expect(after!.past).toBe(before!.past);
    // The vocabulary took the product's terms as a patch: the one read before is still its base.
    expect(after!.vocabulary.base).toBe(before!.vocabulary.base);
    expect(after!.vocabulary.changed.has('ladle')).toBe(true);
  });

  test("a project's index holds its own rows only", async () => {
    const other = await createProject(store.app);
    await createProduct(store.app.client(other.keys.secret_test.token), {
      title: 'Walnut Otherworld',
      variants: [{ title: 'One', price: 100 }],
    });
    const otherCtx = { ...(await keyCtx(store.app, other.project.id, 'key_other')), caches: store.app.deps.caches };
    expect(await suggestIndexReady(otherCtx, SUGGEST_MIN_CLIENTS)).toBeDefined();
    expect(await suggestIndexReady(ctx, SUGGEST_MIN_CLIENTS)).toBeDefined();
    expect((await suggest(otherCtx, 'walnut', 10, { index: true })).map((s) => s.text)).toEqual(['Walnut Otherworld']);
    expect((await suggest(ctx, 'walnut o', 10, { index: true })).map((s) => s.text)).not.toContain('Walnut Otherworld');
  });
});
