import { describe, expect, test } from '@jest/globals';
import type { ChangeFeed } from '../../../src/shared/change-feed.js';
import { TableVersionCache } from '../../../src/shared/table-version-cache.js';
import { TableVersions, TABLE_CHANGED } from '../../../src/shared/table-versions.js';

/** A change feed that listens and delivers the notifications the test sends (`notify`), in order. */
function feedForTests() {
  const handlers = new Map<string, Array<(payload: string) => void>>();
  const feed = {
    listening: true,
    on: (channel: string, handler: (payload: string) => void) =>
      handlers.set(channel, [...(handlers.get(channel) ?? []), handler]),
    onLost: () => {},
    sync: async () => true,
    caughtUp: async () => true,
  } as unknown as ChangeFeed;
  const notify = (payload: string) => handlers.get(TABLE_CHANGED)?.forEach((handler) => handler(payload));
  return { feed, notify };
}

describe('TableVersionCache, per project', () => {
  test("a change named for one project leaves another project's entries; one naming no project (TRUNCATE) reaches all", async () => {
    const { feed, notify } = feedForTests();
    const cache = new TableVersionCache<string>(new TableVersions(feed), 100);
    let computed = 0;
    const read = (project: string) => cache.get(project, 'total', ['products'], async () => `${project}:${++computed}`);
    expect([await read('proj_a'), await read('proj_b')]).toEqual(['proj_a:1', 'proj_b:2']);
    notify('products:proj_b');
    expect([await read('proj_a'), await read('proj_b')]).toEqual(['proj_a:1', 'proj_b:3']);
    notify('customers:proj_a');
    expect(await read('proj_a')).toBe('proj_a:1');
    notify('products');
    expect([await read('proj_a'), await read('proj_b')]).toEqual(['proj_a:4', 'proj_b:5']);
  });

  test("one project's many keys push out only its own entries past its share (a quarter), not another project's", async () => {
    const { feed } = feedForTests();
    const cache = new TableVersionCache<string>(new TableVersions(feed), 8);
    let computed = 0;
    const read = (project: string, key: string) => cache.get(project, key, ['products'], async () => `${++computed}`);
    await read('proj_a', 'x');
    await read('proj_a', 'y');
    for (let i = 0; i < 20; i++) await read('proj_b', `key ${i}`);
    const before = computed;
    expect([await read('proj_a', 'x'), await read('proj_a', 'y')]).toEqual(['1', '2']);
    expect(computed).toBe(before);
    // proj_b kept its last two keys (its share of 8) and computes its earlier ones again.
    await read('proj_b', 'key 19');
    expect(computed).toBe(before);
    await read('proj_b', 'key 0');
    expect(computed).toBe(before + 1);
  });
});

describe('TableVersions, changed rows', () => {
  test('the ids a notification names are logged for a tracked project, and only a complete log answers', () => {
    const { feed, notify } = feedForTests();
    const versions = new TableVersions(feed);
    const version = (project: string) => versions.versionsOf(project, ['search_products'], false)[3];
    versions.trackRows('proj_a', 'search_products');
    const from = version('proj_a');
    notify('search_products:proj_a:prod_1,prod_2');
    notify('search_products:proj_b:prod_9');
    notify('search_products:proj_a:prod_2,prod_3');
    expect(versions.rowsChanged('proj_a', 'search_products', from, version('proj_a'))?.sort()).toEqual([
      'prod_1',
      'prod_2',
      'prod_3',
    ]);
    expect(versions.rowsChanged('proj_a', 'search_products', from + 1, from + 2)).toEqual(['prod_2', 'prod_3']);
    // Not tracked: nothing is known of proj_b's rows.
    expect(versions.rowsChanged('proj_b', 'search_products', 0, version('proj_b'))).toBeUndefined();
    // A notification without ids, or a TRUNCATE (every project, no rows), makes the span unknown.
    const before = version('proj_a');
    notify('search_products:proj_a');
    expect(versions.rowsChanged('proj_a', 'search_products', before, version('proj_a'))).toBeUndefined();
    const again = version('proj_a');
    notify('search_products');
    expect(versions.rowsChanged('proj_a', 'search_products', again, version('proj_a'))).toBeUndefined();
    // A log began after `from` cannot answer for it.
    expect(versions.rowsChanged('proj_a', 'search_products', from - 1, from)).toBeUndefined();
  });
});

describe('TableVersionCache, waiting for other processes', () => {
  // What counts is whether a kept entry's read waits for the listener's round trip: one that never answers here.
  function feedThatNeverCatchesUp() {
    const { feed } = feedForTests();
    let waits = 0;
    (feed as unknown as { caughtUp: () => Promise<boolean> }).caughtUp = () => {
      waits += 1;
      return new Promise<boolean>(() => {});
    };
    return { feed, waits: () => waits };
  }

  test('a kept entry waits for every notification sent before the read (the default)', async () => {
    const { feed, waits } = feedThatNeverCatchesUp();
    const cache = new TableVersionCache<string>(new TableVersions(feed), 100);
    expect(await cache.get('proj_a', 'k', ['products'], async () => 'computed')).toBe('computed');
    expect(waits()).toBe(0); // a miss reads the database anyway
    const served = await Promise.race([
      cache.get('proj_a', 'k', ['products'], async () => 'again'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 50)),
    ]);
    expect(served).toBe('still waiting');
    expect(waits()).toBe(1);
  });

  test('with waitForOthers false (read inside write transactions) a kept entry is served without waiting', async () => {
    const { feed, waits } = feedThatNeverCatchesUp();
    const cache = new TableVersionCache<string>(new TableVersions(feed), 100, { waitForOthers: false });
    await cache.get('proj_a', 'k', ['products'], async () => 'computed');
    expect(await cache.get('proj_a', 'k', ['products'], async () => 'again')).toBe('computed');
    expect(waits()).toBe(0);
  });
});
