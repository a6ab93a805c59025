import { beforeAll, describe, expect, test } from '@jest/globals';
import { generateCatalog } from '../../search-quality/catalog.js';
import { insertFixtureProducts } from '../../search-quality/load.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';
import { Prisma } from '../../../src/generated/prisma/client.js';
import { compile } from '../../../src/modules/search/index-engine/compiled-tsqueries.js';
import { lexemePostingsOf } from '../../../src/modules/search/index-engine/kept-sets.js';
import { rankedOf } from '../../../src/modules/search/index-engine/ranking.js';
import { productIndexReady } from '../../../src/modules/search/product-segments.js';
import { searchVocabularyReady } from '../../../src/modules/search/search-vocabulary.js';
import { searchCatalog, searchIndexesReady } from '../../../src/modules/search/search.service.js';
import { termCandidates } from '../../../src/modules/search/suggest-index.reads.js';
import type { Ctx } from '../../../src/shared/context.js';

// SEARCH_INDEX_CACHES=off exists for the benchmark of cold searches (bench/README.md): each search first forgets
// what the product index keeps across answers, and answers exactly as with them. The app runs with it (and without
// the answer cache, as the bench does); searches called here directly keep the caches (the default).
const store = useStore({ app: { config: { searchCache: false, searchIndexCaches: false } } });
let ctx: Ctx;

beforeAll(async () => {
  ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
  await insertFixtureProducts(store.app.deps.db, store.project.id, 'USD', generateCatalog(300, 7), 300);
  expect(await searchIndexesReady(ctx)).toBe(true);
}, 120_000);

/** The search of `q` from the index: through the service keeping the caches, or through the app (forgetting them). */
async function search(q: string, indexCaches: boolean): Promise<unknown> {
  if (indexCaches) return JSON.parse(JSON.stringify(await searchCatalog(ctx, { q }, { index: true, log: false })));
  const { data, response } = await store.api.GET('/v1/search', { params: { query: { q } } });
  expect(response.status).toBe(200);
  return data!.data;
}

/** What the index keeps now: a compiled tsquery, a ranking record, a lexeme's kept postings, a misspelling's typo candidates. */
async function kept() {
  const segments = (await productIndexReady(ctx))!;
  const vocabulary = (await searchVocabularyReady(ctx))!;
  return {
    compiled: (await compile(ctx, [Prisma.sql`to_tsquery('simple', 'lamp')`]))[0],
    ranked: rankedOf(segments.base),
    postings: lexemePostingsOf(segments.base, 0, 1),
    candidates: termCandidates(vocabulary, 'jakcet'),
  };
}

describe('searchCatalog with SEARCH_INDEX_CACHES=off', () => {
  test("forgets the index's compiled tsqueries, kept sets, ranks, impact orders and typo candidates before each search, and answers as with them", async () => {
    for (const q of ['lamp', 'merino sweater', 'jakcet', '"table lamp"']) {
      const first = await search(q, true);
      // Kept (the default): asked again, what the index kept is still there.
      const before = await kept();
      expect(await search(q, true)).toEqual(first);
      const after = await kept();
      expect(after.compiled).toBe(before.compiled);
      expect(after.ranked).toBe(before.ranked);
      expect(after.postings).toBe(before.postings);
      expect(after.candidates).toBe(before.candidates);
      // Forgotten: every kept thing is made anew, equal to what it was, and the answer is the same.
      for (let round = 0; round < 2; round++) {
        const held = await kept();
        expect(await search(q, false)).toEqual(first);
        const now = await kept();
        expect(now.compiled).not.toBe(held.compiled);
        expect(now.compiled).toEqual(held.compiled);
        expect(now.ranked).not.toBe(held.ranked);
        expect(now.postings).not.toBe(held.postings);
        expect(now.postings).toEqual(held.postings);
        expect(now.candidates).not.toBe(held.candidates);
        expect(now.candidates).toEqual(held.candidates);
      }
    }
  });
});
