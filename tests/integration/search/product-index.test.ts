import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { SYNONYMS, generateCatalog, generateQueries } from '../../search-quality/catalog.js';
import { insertFixtureProducts } from '../../search-quality/load.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';
import { searchCatalog, searchIndexesReady } from '../../../src/modules/search/search.service.js';
import { productIndexReady } from '../../../src/modules/search/product-segments.js';
import { searchVocabularyReady } from '../../../src/modules/search/search-vocabulary.js';
import type { Ctx } from '../../../src/shared/context.js';

// The in-process product index must answer exactly what the statements answer for the same rows: the same
// products in the same order with the same scores, the same totals, relaxation and facets.
const store = useStore();
let ctx: Ctx;

type Query = Parameters<typeof searchCatalog>[1];

async function answers(queries: Query[], index: boolean) {
  const list = [];
  for (const query of queries) list.push(await searchCatalog(ctx, query, { index, log: false }));
  return list;
}

async function expectSameAnswers(queries: Query[]) {
  expect(await searchIndexesReady(ctx)).toBe(true);
  const fromIndex = await answers(queries, true);
  const fromStatements = await answers(queries, false);
  const differing = queries
    .map((query, i) => ({ query, index: fromIndex[i], statement: fromStatements[i] }))
    .filter((d) => JSON.stringify(d.index) !== JSON.stringify(d.statement));
  expect(differing.slice(0, 3)).toEqual([]);
  return fromIndex;
}

let judged: string[];
let titles: string[];

beforeAll(async () => {
  ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
  const catalog = generateCatalog(1500, 7);
  await insertFixtureProducts(store.app.deps.db, store.project.id, 'USD', catalog, 500);
  for (const body of SYNONYMS) await store.api.POST('/v1/search/synonyms', { body });
  judged = generateQueries(catalog).map((j) => j.q);
  titles = catalog.slice(0, 40).map((p) => p.title);
  // Products outside ASCII, sharing titles, with sale prices and without a type.
  for (const [i, title] of ['Café Crème Mug', 'Café Crème Mug', 'Émile Wool Hat', 'Walnut T-Shirt Lamp'].entries())
    await createProduct(store.api, { title, variants: [{ title: 'One', price: 1250, sku: `MUG-${i}` }] });
}, 300_000);

describe('product index', () => {
  test('answers every graded query, the benchmark mix and query-language cases exactly as the statements', async () => {
    const words = ['shirt', 'lamp', 'walnut', 'merino sweater', 'oak table', 'sweatr', 'hedphones', 'jakcet'];
    const language = [
      '"table lamp"',
      '"power bank"',
      // The same two words as the phrase before, the other way round: its own verified products, not the other's.
      '"lamp table"',
      'jacket -black',
      'lamp OR shirt',
      '"wool hat" OR mug',
      'cafe',
      'café crème',
      't-shirt',
      'tee shirt',
      'the',
      'hood',
      'cozy grey hoodie for the weekend',
      'lightweight running shoes for summer trails',
      'walnut -"table lamp" oak',
      'wal',
      'jumper',
      // Prefixes of many lexemes (more than the index keeps a cursor per lexeme for).
      's',
      'co',
      'lamp s',
      'wool b',
      '"table lamp" c',
    ];
    const queries: Query[] = [...judged, ...words, ...language, ...titles].map((q) => ({ q }));
    const filtered: Query[] = [
      { q: 'shirt', product_type: 'Shirts' },
      { q: 'lamp', in_stock: true },
      { q: 'chair', price_max: 10000 },
      { q: 'blanket', tag: 'soft' },
      { q: 'lamp', price_min: 2000, price_max: 9000, facets: false },
      { q: 'shirt', limit: 5, offset: 7 },
      { q: 'walnut lamp shirt', limit: 50 },
      { q: 'wool', offset: 40 },
    ];
    const result = await expectSameAnswers([...queries, ...filtered]);
    // Answers computed concurrently (their steps interleaved at every await) are the same answers.
    const sample = [...queries.slice(0, 60), ...filtered];
    const concurrent = await Promise.all(sample.map((query) => searchCatalog(ctx, query, { index: true, log: false })));
    expect(concurrent).toEqual(await answers(sample, false));
    // Not vacuous: most of these queries find products, and some are relaxed.
    expect(result.filter((r) => r.products.total > 0).length).toBeGreaterThan(queries.length * 0.8);
    expect(result.filter((r) => r.products.relaxation).length).toBeGreaterThan(10);
  }, 300_000);

  test("small pages of broad queries are the statements' pages", async () => {
    // Two or more words rank each product by calc_rank_and; a page of a few of hundreds of matches ranks only the
    // groups of products whose score bound can reach it (exact titles and title word pairs earn bonuses).
    const broad = [
      'hearthly home',
      'soundwave electronics',
      'casa verde',
      'voltix electronics',
      'fjellgear apparel',
      'handmade electronics',
      'warm apparel',
      'oakline lamp home',
      'oak table',
      'lamp shirt walnut oak',
    ];
    const queries: Query[] = [...broad, ...titles.slice(0, 12)].flatMap((q) => [
      { q, limit: 1 },
      { q, limit: 3 },
      { q, limit: 2, offset: 5 },
      { q, limit: 4, offset: 17, facets: false },
    ]);
    const result = await expectSameAnswers(queries);
    // Not vacuous: many of these pages are a small part of what their query matches.
    expect(result.filter((r) => r.products.total > 8 * (r.products.data.length + 1)).length).toBeGreaterThan(20);
  }, 300_000);

  test("small pages of relaxed answers are the statements' pages", async () => {
    // A relaxed answer's order puts strict matches first, then the head word, then the words matched, then the
    // score: its small pages, of candidates ranked per product or from the postings, as the statements page them.
    // With an exclusion (never relaxed) the candidates are ranked per product (calc_rank_and); title word pairs
    // ("floor lamp") earn bonuses, so groups of more words matched can have lower bounds than groups of fewer.
    const sentences = [
      'cozy grey hoodie for the weekend',
      'lightweight running shoes for summer trails',
      'oak table lamp walnut',
      'floor lamp walnut oak ceramic -black',
      'denim shirt linen cotton wool -navy',
      'fitness tracker aluminium plastic steel -white',
      'wool sweater cashmere linen cotton -grey',
      'table lamp ceramic glass oak -black',
      'frying pan steel cast iron -red',
      'walnut -"table lamp" oak',
      ...titles.slice(0, 4).map((title) => `${title} for weekend travel -black`),
    ];
    const queries: Query[] = sentences.flatMap((q) => [
      { q },
      { q, limit: 5 },
      { q, limit: 8 },
      { q, limit: 3, offset: 4, facets: false },
    ]);
    const result = await expectSameAnswers(queries);
    // Not vacuous: relaxed answers whose pages end before half of their products.
    const small = result.filter(
      (r, i) => r.products.relaxation && r.products.total > 2 * ((queries[i].offset ?? 0) + (queries[i].limit ?? 20)),
    );
    expect(small.length).toBeGreaterThanOrEqual(15);
  }, 300_000);

  test("one-word answers read from their set's kept order are the statements' answers, within the kept rows and past them", async () => {
    // Ranked by the query's tsqueries alone (no bonus, rule or pin), a set's first 100 rows are kept in order: the
    // first search of each query keeps them, the next pages within them are read from them, pages past them ranked.
    const queries: Query[] = ['s', 'co', 'lamp', 'shirt', 'sweatr', 'wool'].flatMap((q) => [
      { q },
      { q, limit: 20, offset: 80, explain: true },
      { q, limit: 3, offset: 99 },
      { q, limit: 100, facets: false },
      { q, tag: 'soft' },
      { q, tag: 'soft', offset: 5 },
    ]);
    const result = await expectSameAnswers(queries);
    // Not vacuous: pages deep in sets of more than 100 products, read from the kept rows and past them.
    const deep = result.filter((r, i) => r.products.total > 103 && (queries[i].offset ?? 0) >= 80);
    expect(deep.length).toBeGreaterThanOrEqual(6);
  }, 300_000);

  test('a group whose bound reaches the page is ranked: a boosted product below rows with bonuses, a buried one below rows ranked low', async () => {
    // Three titles with the words side by side (a pair bonus), four with one word in the description only (a low
    // rank), one of those boosted tenfold: on a page of two, the boosted one comes first although its group
    // would be left unranked if its bound ignored its multiplier or its rank.
    const make = (title: string, description: string) =>
      createProduct(store.api, { title, description, variants: [{ title: 'One', price: 4200 }] });
    for (const name of ['Alder', 'Birch', 'Cedar']) await make(`Zephyr Quilt ${name}`, 'A quilt.');
    for (const name of ['Dune', 'Elm', 'Fern']) await make(`Quilt ${name}`, `A quilt by zephyr weavers, ${name}.`);
    const boosted = await make('Quilt Grove', 'A quilt by zephyr weavers.');
    const rule = (action: 'boost' | 'bury', query: string, productId: string, multiplier: number) =>
      store.api.POST('/v1/search/merchandising', {
        body: {
          name: `${action} ${query}`,
          match_query: query,
          match_type: 'exact',
          action,
          product_id: productId,
          score_multiplier: multiplier,
        } as never,
      });
    await rule('boost', 'zephyr quilt', boosted.id, 10);
    // Five products with "throw" in the title and "mistral" in the description (a low rank, the highest bound),
    // and one with both words in its title, buried to 0.9: its group's bound is lower, its score higher.
    for (const name of ['Dune', 'Elm', 'Fern', 'Gale', 'Heath'])
      await make(`Throw ${name}`, `A throw by mistral makers, ${name}.`);
    const buried = await make('Mistral Wool Throw', 'A wool throw.');
    await rule('bury', 'mistral throw', buried.id, 0.9);
    ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
    const [first, second, third] = await expectSameAnswers([
      { q: 'zephyr quilt', limit: 2 },
      { q: 'zephyr quilt', limit: 2, offset: 3 }, // five of seven rows: every row ranked (the unbounded path)
      { q: 'mistral throw', limit: 2 },
    ]);
    expect(third.products.data[0].id).toBe(buried.id);
    expect(first.products.data[0].id).toBe(boosted.id);
    expect(first.products.data[1].title).toMatch(/^Zephyr Quilt/);
    expect(second.products.data.map((p) => p.title)).toEqual([
      expect.stringMatching(/^Zephyr Quilt/),
      expect.stringMatching(/^Quilt/),
    ]);
  }, 300_000);

  test('merchandising rules (pins, hidden products, boosts) and currencies are applied as the statements apply them', async () => {
    const { products } = await searchCatalog(ctx, { q: 'lamp' }, { log: false });
    const [a, b, c] = products.data;
    const other = (await searchCatalog(ctx, { q: 'shirt' }, { log: false })).products.data[3];
    const rule = (body: Record<string, unknown>) => store.api.POST('/v1/search/merchandising', { body: body as never });
    await rule({
      name: 'pin',
      match_query: 'lamp',
      match_type: 'contains',
      action: 'pin',
      product_id: other.id,
      pin_position: 1,
    });
    await rule({ name: 'hide', match_query: 'lamp', match_type: 'contains', action: 'hide', product_id: a.id });
    await rule({
      name: 'boost',
      match_query: 'lamp',
      match_type: 'contains',
      action: 'boost',
      product_id: c.id,
      score_multiplier: 3,
    });
    await rule({
      name: 'bury',
      match_query: 'lamp',
      match_type: 'contains',
      action: 'bury',
      product_id: b.id,
      score_multiplier: 0.2,
    });
    await store.app.deps.db.project.update({
      where: { id: store.project.id },
      data: { exchangeRates: { EUR: 0.9137, JPY: 151.5 } },
    });
    ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
    const result = await expectSameAnswers([
      { q: 'lamp' },
      { q: 'walnut lamp' },
      { q: 'table lamp', currency: 'EUR' },
      { q: 'lamp', currency: 'JPY', price_min: 500 },
      { q: 'lamp shirt walnut oak', offset: 1, limit: 3 },
      // Small pages with the rules applied: a boosted or buried product's bound is its multiplier's.
      { q: 'walnut lamp', limit: 2 },
      { q: 'table lamp', limit: 1, offset: 2 },
      { q: 'lamp walnut', limit: 3, offset: 1, currency: 'EUR' },
    ]);
    expect(result[0].products.data[1].id).toBe(other.id);
    expect(result[0].products.data.map((p) => p.id)).not.toContain(a.id);
  }, 300_000);

  test('changed products are applied to the index without a rebuild, and it answers as the statements', async () => {
    const indexes = store.app.deps.caches!.productIndexes;
    expect(await productIndexReady(ctx)).toBeDefined();
    const lamps: string[] = [];
    for (const title of ['Harbor Lamp', 'Oak Lamp Classic', 'Soft Lamp Shade', 'Walnut Desk Lamp'])
      lamps.push((await createProduct(store.api, { title, variants: [{ title: 'One', price: 2500 }] })).id);
    // Applied already (these products are new since the index was built).
    const built = await productIndexReady(ctx);
    expect(built?.delta?.ids.length).toBeGreaterThanOrEqual(lamps.length);
    const builds = indexes.buildsOf(store.project.id, 'products');
    expect(await searchVocabularyReady(ctx)).toBeDefined();
    const vocabularyBuilds = store.app.deps.caches!.suggestIndexes.buildsOf(store.project.id, 'vocabulary');
    const contextBuilds = indexes.buildsOf(store.project.id, 'search-context');
    // A new product, products renamed (their words move), one retagged (its facets move), one deleted.
    const added = await createProduct(store.api, {
      title: 'Zanzibar Lamp',
      tags: ['soft', 'zanzibar'],
      variants: [{ title: 'One', price: 999 }],
    });
    const update = (id: string, body: { title?: string; tags?: string[] }) =>
      store.api.PATCH('/v1/products/{id}', { params: { path: { id } }, body });
    await update(lamps[0], { title: 'Zanzibar Oak Shirt' });
    await update(lamps[1], { title: 'Walnut Lamp' });
    await update(lamps[2], { tags: ['soft', 'gift'] });
    await store.api.DELETE('/v1/products/{id}', { params: { path: { id: lamps[3] } } });
    const segments = await productIndexReady(ctx);
    expect(segments?.base).toBe(built?.base);
    expect([...segments!.changed].sort()).toEqual([...new Set([...built!.changed, added.id, ...lamps])].sort());
    const result = await expectSameAnswers([
      { q: 'zanzibar' },
      { q: 'zanzibr lamp' },
      { q: 'zanz' },
      { q: 'lamp' },
      { q: 'lamp', limit: 3 },
      { q: 'lamp', offset: 2, limit: 5 },
      { q: 'walnut lamp' },
      { q: 'lamp', tag: 'soft' },
      { q: 'lamp', price_max: 1000 },
      { q: 'oak shirt' },
      { q: 'zanzibar oak table lamp walnut' },
      { q: 'cozy grey hoodie for the weekend' },
      ...judged.slice(0, 80).map((q) => ({ q })),
    ]);
    expect(result[0].products.data.map((p) => p.title).sort()).toEqual(['Zanzibar Lamp', 'Zanzibar Oak Shirt']);
    expect(result[3].products.data.map((p) => p.id)).not.toContain(lamps[3]);
    // The typo is corrected to the new product's word: the changed terms were applied to the vocabulary.
    expect(result[1].products.data.map((p) => p.title)).toContain('Zanzibar Lamp');
    const vocabulary = await searchVocabularyReady(ctx);
    expect(vocabulary?.changed.has('zanzibar')).toBe(true);
    expect(vocabulary?.overlay?.terms).toContain('zanzibar');
    expect(indexes.buildsOf(store.project.id, 'products')).toBe(builds);
    expect(store.app.deps.caches!.suggestIndexes.buildsOf(store.project.id, 'vocabulary')).toBe(vocabularyBuilds);
    expect(indexes.buildsOf(store.project.id, 'search-context')).toBe(contextBuilds);
  }, 300_000);

  test('collection and tag filters and facets as the statements, products with more tags and collections than a facet record holds included', async () => {
    const lamps = (await searchCatalog(ctx, { q: 'lamp', limit: 30 }, { log: false })).products.data.map((p) => p.id);
    const many = await createProduct(store.api, {
      title: 'Walnut Lamp Deluxe',
      tags: ['soft', 'walnut', 'desk', 'warm', 'gift', 'lamp'],
      variants: [{ title: 'One', price: 4200 }],
    });
    const collections: string[] = [];
    for (const [title, members] of [
      ['Lamps We Love', [...lamps.slice(0, 20), many.id]],
      ['Desk Lights', [...lamps.slice(10, 25), many.id]],
      ['Gifts', [many.id]],
    ] as const) {
      const { data } = await store.api.POST('/v1/collections', { body: { title } });
      collections.push(data!.data.id);
      await store.api.POST('/v1/collections/{id}/products', {
        params: { path: { id: data!.data.id } },
        body: { product_ids: [...members] },
      });
    }
    const result = await expectSameAnswers([
      { q: 'lamp' },
      { q: 'lamp', collection_id: collections[0] },
      { q: 'lamp', collection_id: collections[1], in_stock: true },
      { q: 'lamp', collection_id: collections[2] },
      { q: 'lamp', collection_id: 'coll_00000000000000000000000000' },
      { q: 'walnut lamp', tag: 'warm' },
      { q: 'lamp', tag: 'gift', price_min: 4000 },
      { q: 'lamp', tag: 'no-such-tag' },
    ]);
    // Not vacuous: the collections filter and count as created.
    expect(result[1].products.total).toBe(21);
    expect(result[3].products.data.map((p) => p.id)).toEqual([many.id]);
    expect(result[0].products.facets?.collection.map((c) => c.title).sort()).toEqual([
      'Desk Lights',
      'Gifts',
      'Lamps We Love',
    ]);
    expect(result[5].products.data.map((p) => p.id)).toContain(many.id);
  }, 300_000);
});
