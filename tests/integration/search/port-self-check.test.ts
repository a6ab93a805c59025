import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase } from '../../setup/database.js';
import { portDifferences, portDifferencesOn } from '../../../src/modules/search/engine/self-check.js';
import { productIndexReady } from '../../../src/modules/search/product-segments.js';
import { searchCatalog } from '../../../src/modules/search/search.service.js';
import { poolOf } from '../../../src/db/client.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';
import { tsRank } from '../../../src/modules/search/engine/pg-tsrank.js';
import { RANK_WEIGHTS } from '../../../src/modules/search/product-index.js';

describe('the port of @@ and ts_rank checked against the server', () => {
  test('agrees with this PostgreSQL on every fixed pair, and finds a deliberately altered rank', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.directUrl });
    await client.connect();
    try {
      expect(await portDifferences(client, RANK_WEIGHTS)).toEqual([]);
      const altered: typeof tsRank = (weights, doc, query) => Math.fround(tsRank(weights, doc, query) * 1.0001);
      const differences = await portDifferences(client, RANK_WEIGHTS, altered);
      expect(differences.length).toBeGreaterThan(0);
      expect(differences[0]).toMatch(/^document \d+, query \d+: @@ (true|false) \(port (true|false)\), ts_rank/);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});

describe('a product index on a server the port disagrees with', () => {
  const store = useStore();

  test('is not built: searches run their statements, with a log line and the unusable count', async () => {
    const ctx = { ...(await keyCtx(store.app, store.project.id, 'key_test')), caches: store.app.deps.caches };
    await createProduct(store.api, { title: 'Walnut Table Lamp', variants: [{ title: 'One', price: 2500 }] });
    const pool = poolOf(store.app.deps.db)!;
    const indexes = store.app.deps.caches!.productIndexes;
    const altered: typeof tsRank = (weights, doc, query) => Math.fround(tsRank(weights, doc, query) * 1.0001);
    expect((await portDifferencesOn(pool, RANK_WEIGHTS, altered)).length).toBeGreaterThan(0);
    const unusable = indexes.unusable;
    expect(await productIndexReady(ctx)).toBeUndefined();
    expect(indexes.unusable).toBeGreaterThan(unusable);
    const answer = await searchCatalog(ctx, { q: 'lamp' }, { index: true, log: false });
    expect(answer.products.data.map((p) => p.title)).toEqual(['Walnut Table Lamp']);
    // With the port agreeing again, the next build (after a write: the refusal stands until then) gives the index.
    expect(await portDifferencesOn(pool, RANK_WEIGHTS, tsRank)).toEqual([]);
    await createProduct(store.api, { title: 'Oak Side Table', variants: [{ title: 'One', price: 4000 }] });
    expect(await productIndexReady(ctx)).toBeDefined();
  });
});
