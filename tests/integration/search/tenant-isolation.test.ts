import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { keyCtx } from '../../setup/ctx.js';
import { startTwoProcesses } from '../../setup/two-processes.js';
import type { TestApp } from '../../setup/test-app.js';
import { searchCatalog, searchIndexesReady } from '../../../src/modules/search/search.service.js';
import { productIndexOf } from '../../../src/modules/search/product-segments.js';
import type { Ctx } from '../../../src/shared/context.js';

// Change notifications name the project they concern: a write in one project leaves every other project's
// in-process indexes and cached answers as they were, in every process; a project's own write is seen by its
// next search in every process (at once in the writer's, once the notification is heard in the others).
let a: TestApp;
let b: TestApp;
let storeA: CreatedProject;
let storeB: CreatedProject;
let close: () => Promise<void>;

const ctxOn = async (app: TestApp, store: CreatedProject): Promise<Ctx> => ({
  ...(await keyCtx(app, store.project.id, 'key_test')),
  caches: app.deps.caches,
});

const titlesOf = (answer: Awaited<ReturnType<typeof searchCatalog>>) => answer.products.data.map((p) => p.title);

/** Resolves once `app` has heard every notification of what committed before the call. */
async function heardBy(app: TestApp): Promise<void> {
  expect(await app.deps.caches!.versions.sync()).toBe(true);
}

beforeAll(async () => {
  ({ a, b, store: storeA, close } = await startTwoProcesses());
  storeB = await createProject(a);
  for (const title of ['Walnut Table Lamp', 'Oak Side Table', 'Linen Shirt'])
    await createProduct(a.client(storeA.keys.secret_test.token), { title, variants: [{ title: 'One', price: 2500 }] });
  await createProduct(a.client(storeB.keys.secret_test.token), {
    title: 'Brass Lamp',
    variants: [{ title: 'One', price: 1900 }],
  });
}, 60_000);

afterAll(() => close());

describe('tenant isolation of the search indexes and caches', () => {
  test("writes in project B leave project A's product and suggest indexes and cached answers intact in both processes", async () => {
    const processes = [a, b];
    const ctxs = await Promise.all(processes.map((app) => ctxOn(app, storeA)));
    for (const ctx of ctxs) expect(await searchIndexesReady(ctx)).toBe(true);
    const query = { q: 'lamp' };
    // Cached once in each process.
    for (const ctx of ctxs) await searchCatalog(ctx, query, { cache: true, index: true, log: false });
    const before = processes.map((app) => ({
      products: app.deps.caches!.productIndexes.buildsOf(storeA.project.id, 'products'),
      rules: app.deps.caches!.productIndexes.buildsOf(storeA.project.id, 'search-context'),
      suggest: app.deps.caches!.suggestIndexes.buildsOf(storeA.project.id, 'suggest-catalog'),
      answers: app.deps.caches!.searchAnswers.misses,
    }));
    expect(before.every((counts) => counts.products === 1 && counts.suggest === 1)).toBe(true);

    // B writes through both processes: products (search_products, collections), a collection and a customer.
    for (const app of processes) {
      const apiB = app.client(storeB.keys.secret_test.token);
      await createProduct(apiB, { title: 'Lamp Shade', variants: [{ title: 'One', price: 900 }] });
      expect((await apiB.POST('/v1/collections', { body: { title: 'Lamps' } })).response.status).toBe(201);
      expect(
        (
          await apiB.POST('/v1/customers', {
            body: { email: `b-${processes.indexOf(app)}@example.com`, first_name: 'Bea', last_name: 'Other' },
          })
        ).response.status,
      ).toBe(201);
    }
    for (const app of processes) await heardBy(app);

    for (const [i, ctx] of ctxs.entries()) {
      const caches = processes[i].deps.caches!;
      // Exact without a rebuild: served now, not undefined (which would mean stale, answered by the statements).
      expect(await productIndexOf(ctx)).toBeDefined();
      const answer = await searchCatalog(ctx, query, { cache: true, index: true, log: false });
      expect(titlesOf(answer)).toEqual(['Walnut Table Lamp']);
      expect(caches.searchAnswers.misses).toBe(before[i].answers);
      expect(await searchIndexesReady(ctx)).toBe(true);
      expect(caches.productIndexes.buildsOf(storeA.project.id, 'products')).toBe(before[i].products);
      expect(caches.productIndexes.buildsOf(storeA.project.id, 'search-context')).toBe(before[i].rules);
      expect(caches.suggestIndexes.buildsOf(storeA.project.id, 'suggest-catalog')).toBe(before[i].suggest);
    }
  }, 60_000);

  test("project A's own write is in its next search: at once in the writing process, once heard in the other", async () => {
    const [onA, onB] = await Promise.all([ctxOn(a, storeA), ctxOn(b, storeA)]);
    for (const ctx of [onA, onB]) expect(await searchIndexesReady(ctx)).toBe(true);
    await createProduct(a.client(storeA.keys.secret_test.token), {
      title: 'Zanzibar Lamp',
      variants: [{ title: 'One', price: 999 }],
    });
    const here = await searchCatalog(onA, { q: 'zanzibar' }, { cache: true, index: true, log: false });
    expect(titlesOf(here)).toEqual(['Zanzibar Lamp']);
    await heardBy(b);
    const there = await searchCatalog(onB, { q: 'zanzibar' }, { cache: true, index: true, log: false });
    expect(titlesOf(there)).toEqual(['Zanzibar Lamp']);
    // Through HTTP too, with the publishable key, in both processes.
    for (const app of [a, b]) {
      const { data } = await app
        .client(storeA.keys.publishable_test.token)
        .GET('/v1/search', { params: { query: { q: 'zanzibar' } } });
      expect(data!.data.products.data.map((p) => p.title)).toEqual(['Zanzibar Lamp']);
    }
  }, 60_000);
});
