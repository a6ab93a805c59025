import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ChangeFeed } from '../../../src/shared/change-feed.js';
import { TableVersionCache } from '../../../src/shared/table-version-cache.js';
import { TableVersions } from '../../../src/shared/table-versions.js';
import { createLogger } from '../../../src/shared/logger.js';
import { createProduct } from '../../factories/catalog.factory.js';
import type { CreatedProject } from '../../factories/project.factory.js';
import type { TestApp } from '../../setup/test-app.js';
import { startTwoProcesses } from '../../setup/two-processes.js';
import { sessionUrlOf } from '../../setup/test-app.js';

// Two server processes on one database: each caches search answers and must drop them when the other
// (or plain SQL) changes what they were computed from.
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
let close: () => Promise<void>;
beforeAll(async () => ({ a, b, store, close } = await startTwoProcesses()));
afterAll(() => close());

const titlesSeenBy = async (app: TestApp, q: string) => {
  const { data } = await app.client(store.keys.publishable_test.token).GET('/v1/search', { params: { query: { q } } });
  return {
    titles: data!.data.products.data.map((p) => p.title).sort(),
    total: data!.data.products.total,
    facets: data!.data.products.facets,
  };
};

/** What `app` answers for `q`, polled for up to two seconds until `done` holds (a notification takes a moment). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('cached search answers stay exact', () => {
  test("another process's product write, a write in plain SQL, and this process's own writes show in the next answers", async () => {
    const apiA = a.client(store.keys.secret_test.token);
    const apiB = b.client(store.keys.secret_test.token);
    await createProduct(apiA, { title: 'Cache Lantern One', variants: [{ title: 'One', price: 1000 }] });
    expect((await titlesSeenBy(a, 'lantern')).total).toBe(1);
    expect((await titlesSeenBy(a, 'lantern')).total).toBe(1); // now cached in a

    const second = await createProduct(apiB, { title: 'Cache Lantern Two', variants: [{ title: 'One', price: 2000 }] });
    const seen = await eventually(
      () => titlesSeenBy(a, 'lantern'),
      (r) => r.total === 2,
    );
    expect(seen.titles).toEqual(['Cache Lantern One', 'Cache Lantern Two']);
    expect(seen.facets!.price).toEqual({ min: 1000, max: 2000 });

    await a.deps.db
      .$executeRaw`UPDATE search_products SET title = 'Cache Lantern Renamed' WHERE product_id = ${second.id}`;
    expect(
      (
        await eventually(
          () => titlesSeenBy(a, 'lantern'),
          (r) => r.titles.includes('Cache Lantern Renamed'),
        )
      ).titles,
    ).toContain('Cache Lantern Renamed');

    // This process's own write is seen at once (no waiting for the notification).
    await apiA.DELETE('/v1/products/{id}', { params: { path: { id: second.id } } });
    expect((await titlesSeenBy(a, 'lantern')).total).toBe(1);
  });

  test('suggestions follow new titles and synonyms apply at once in the other process too', async () => {
    const publishableA = a.client(store.keys.publishable_test.token);
    const suggestions = async () =>
      (await publishableA.GET('/v1/search/suggest', { params: { query: { q: 'zephyr' } } })).data!.data.map(
        (s) => s.text,
      );
    expect(await suggestions()).toEqual([]);
    await createProduct(b.client(store.keys.secret_test.token), {
      title: 'Zephyr Kettle',
      variants: [{ title: 'One', price: 1000 }],
    });
    expect(await eventually(suggestions, (list) => list.length > 0)).toContain('Zephyr Kettle');

    expect((await titlesSeenBy(a, 'teapot')).total).toBe(0);
    await b.client(store.keys.secret_test.token).POST('/v1/search/synonyms', { body: { terms: ['teapot', 'kettle'] } });
    expect(
      (
        await eventually(
          () => titlesSeenBy(a, 'teapot'),
          (r) => r.total === 1,
        )
      ).titles,
    ).toEqual(['Zephyr Kettle']);
  });
});

describe('TableVersionCache', () => {
  test('concurrent misses of one key compute once; a write of the project makes the next read compute again', async () => {
    const feed = new ChangeFeed(sessionUrlOf(a), createLogger('silent'));
    try {
      await feed.start();
      const versions = new TableVersions(feed);
      const cache = new TableVersionCache<number>(versions, 10);
      let computed = 0;
      const compute = async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return ++computed;
      };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => cache.get('proj_x', 'k', ['search_products'], compute)),
      );
      expect(answers).toEqual([1, 1, 1, 1, 1]);
      expect(await cache.get('proj_x', 'k', ['search_products'], compute)).toBe(1);
      versions.projectWritten('proj_x');
      expect(await cache.get('proj_x', 'k', ['search_products'], compute)).toBe(2);
    } finally {
      await feed.close();
    }
  });
});
