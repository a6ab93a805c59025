import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ChangeFeed } from '../../../src/shared/change-feed.js';
import { createProcessCaches } from '../../../src/shared/table-version-cache.js';
import { createLogger } from '../../../src/shared/logger.js';
import type { CreatedProject } from '../../factories/project.factory.js';
import type { TestApp } from '../../setup/test-app.js';
import { startTwoProcesses } from '../../setup/two-processes.js';
import { sessionUrlOf } from '../../setup/test-app.js';

let a: TestApp;
let b: TestApp;
let store: CreatedProject;
let close: () => Promise<void>;
beforeAll(async () => ({ a, b, store, close } = await startTwoProcesses()));
afterAll(() => close());

const customer = (n: number) => ({
  email: `total-${n}-${Date.now()}@example.com`,
  first_name: 'Tess',
  last_name: `Total ${n}`,
});

/** The customer list's total as process `app` answers it, polled for up to a second until it equals `expected`. */
async function totalSeenBy(app: TestApp, expected: number): Promise<number> {
  const api = app.client(store.keys.secret_test.token);
  const deadline = Date.now() + 1000;
  for (let attempt = 1; ; attempt++) {
    const { data } = await api.GET('/v1/customers', { params: { query: { limit: 1 } } });
    if (data!.pagination.total === expected || Date.now() > deadline) {
      if (process.env.DEBUG_TOTALS) console.log(`expected ${expected}: ${attempt} attempts`);
      return data!.pagination.total;
    }
  }
}

describe('list totals', () => {
  test('a total changes right after a create or a delete made by another process', async () => {
    const apiA = a.client(store.keys.secret_test.token);
    const apiB = b.client(store.keys.secret_test.token);
    await apiA.POST('/v1/customers', { body: customer(1) });
    expect(await totalSeenBy(a, 1)).toBe(1); // counted, then cached by process a
    const created = await apiB.POST('/v1/customers', { body: customer(2) });
    expect(created.response.status).toBe(201);
    expect(await totalSeenBy(a, 2)).toBe(2);
    await apiB.DELETE('/v1/customers/{id}', { params: { path: { id: created.data!.data.id } } });
    expect(await totalSeenBy(a, 1)).toBe(1);
  });

  test('a write in SQL, outside every service, invalidates the cached total too', async () => {
    const before = (
      await a.client(store.keys.secret_test.token).GET('/v1/customers', { params: { query: { limit: 1 } } })
    ).data!.pagination.total;
    await a.deps.db
      .$executeRaw`UPDATE customers SET deleted_at = now() WHERE project_id = ${store.project.id} AND deleted_at IS NULL`;
    expect(await totalSeenBy(a, 0)).toBe(0);
    expect(before).toBeGreaterThan(0);
  });

  test('a cursor walk keeps the total it started with; a new first page sees the new one', async () => {
    const api = a.client(store.keys.secret_test.token);
    for (let n = 10; n < 13; n++) await api.POST('/v1/customers', { body: customer(n) });
    const first = await api.GET('/v1/customers', { params: { query: { limit: 1 } } });
    expect(first.data!.pagination.total).toBe(3);
    await api.POST('/v1/customers', { body: customer(13) });
    const second = await api.GET('/v1/customers', {
      params: { query: { limit: 1, cursor: first.data!.pagination.cursor! } },
    });
    expect(second.data!.pagination.total).toBe(3);
    expect((await api.GET('/v1/customers', { params: { query: { limit: 1 } } })).data!.pagination.total).toBe(4);
  });
});

describe('TableVersionCache: list totals', () => {
  let feed: ChangeFeed;
  afterAll(() => feed?.close());

  test('counts once while nothing changes, again after a table_changed notification of one of its tables, always while not listening', async () => {
    feed = new ChangeFeed(sessionUrlOf(a), createLogger('silent'));
    const { versions, listTotals } = createProcessCaches(feed);
    let counts = 0;
    const count = async () => ++counts;
    const total = () => listTotals.get('proj_x', 'customers|{}', ['customers'], count);
    // Not listening yet: every call counts.
    await total();
    await total();
    expect(counts).toBe(2);
    await feed.start();
    await total();
    expect(await total()).toBe(3);
    expect(counts).toBe(3);
    await a.deps.db.$executeRaw`SELECT pg_notify('table_changed', 'products')`;
    await a.deps.db.$executeRaw`SELECT pg_notify('table_changed', 'customers')`;
    const deadline = Date.now() + 2000;
    while (counts === 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10)); // lets the notification arrive
      await total();
    }
    expect(counts).toBe(4);
    versions.projectWritten('proj_x');
    await total();
    expect(counts).toBe(5);
  });
});
