import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { changeOf, TABLE_CHANGED } from '../../../src/shared/table-versions.js';
import type { CreatedProject } from '../../factories/project.factory.js';
import { createWebhook, listDeliveries } from '../../factories/webhook.factory.js';
import type { TestApp } from '../../setup/test-app.js';
import { startTwoProcesses, withTableNotificationsHeld } from '../../setup/two-processes.js';
import { lockWaits } from '../../setup/wait.js';

// Fan-out skips the subscription query while the project's cached event types say nobody listens; these
// tests prove the cache never drops an event it should deliver.
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
let close: () => Promise<void>;
beforeAll(async () => ({ a, b, store, close } = await startTwoProcesses()));
afterAll(() => close());

const customer = (n: number) => ({
  email: `fan-out-${n}-${Date.now()}@example.com`,
  first_name: 'Fay',
  last_name: `Out ${n}`,
});

/** Resolves when process `app` has heard that webhook_subscriptions changed. */
function subscriptionsChangeHeardBy(app: TestApp): Promise<void> {
  return new Promise((resolve) =>
    app.deps.authCache!.feed.on(
      TABLE_CHANGED,
      (payload) => changeOf(payload).table === 'webhook_subscriptions' && resolve(),
    ),
  );
}

describe('webhook fan-out with the cached event types', () => {
  test('a subscription created by another process gets the next event of this process', async () => {
    const apiA = a.client(store.keys.secret_test.token);
    const apiB = b.client(store.keys.secret_test.token);
    // Process a learns (and caches) that nobody listens to customer.created.
    expect((await apiA.POST('/v1/customers', { body: customer(1) })).response.status).toBe(201);
    const heard = subscriptionsChangeHeardBy(a);
    const webhook = await createWebhook(apiB, 'https://hooks.example.com/orders');
    await heard;
    expect((await apiA.POST('/v1/customers', { body: customer(2) })).response.status).toBe(201);
    const deliveries = await listDeliveries(apiA, webhook.id);
    expect(deliveries.map((d) => d.event_type)).toEqual(['customer.created']);
  });

  test('a subscription created by this process gets the very next event, with nothing to wait for', async () => {
    const api = a.client(store.keys.secret_test.token);
    const webhook = await createWebhook(api, 'https://hooks.example.com/customers', { events: ['customer.updated'] });
    const created = await api.POST('/v1/customers', { body: customer(3) });
    await api.PATCH('/v1/customers/{id}', {
      params: { path: { id: created.data!.data.id } },
      body: { first_name: 'Faye' },
    });
    expect((await listDeliveries(api, webhook.id)).map((d) => d.event_type)).toEqual(['customer.updated']);
  });

  test('a paused subscription resumed in SQL, outside every service, is seen too', async () => {
    const api = a.client(store.keys.secret_test.token);
    const webhook = await createWebhook(api, 'https://hooks.example.com/notes', {
      events: ['customer.deleted'],
      status: 'paused',
    });
    const first = await api.POST('/v1/customers', { body: customer(4) });
    await api.DELETE('/v1/customers/{id}', { params: { path: { id: first.data!.data.id } } }); // cached: nobody listens
    const heard = subscriptionsChangeHeardBy(a);
    await a.deps.db.$executeRaw`UPDATE webhook_subscriptions SET status = 'active' WHERE id = ${webhook.id}`;
    await heard;
    const second = await api.POST('/v1/customers', { body: customer(5) });
    await api.DELETE('/v1/customers/{id}', { params: { path: { id: second.data!.data.id } } });
    expect((await listDeliveries(api, webhook.id)).map((d) => d.event_type)).toEqual(['customer.deleted']);
  });

  test('more concurrent writes than the pool has connections all answer (the read never waits for a second connection)', async () => {
    const api = a.client(store.keys.secret_test.token);
    // Every write below finds the cached event types stale and reads them (through its transaction).
    a.deps.caches!.versions.tableWritten('webhook_subscriptions', store.project.id);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => api.POST('/v1/customers', { body: customer(100 + n) })),
    );
    expect(answers.map((answer) => answer.response.status)).toEqual(Array(40).fill(201));
  }, 30_000);

  test('a conditional write whose snapshot predates a new subscription does not make this process forget it', async () => {
    const api = a.client(store.keys.secret_test.token);
    const id = (await api.POST('/v1/customers', { body: customer(300) })).data!.data.id;
    // Holding the customer's row lock, so the PATCH with If-Match takes its snapshot (REPEATABLE READ) and then
    // waits at its UPDATE while the subscription is created and heard of.
    const holder = new pg.Client({ connectionString: a.deps.config.databaseUrl });
    await holder.connect();
    let webhookId: string;
    let conditional: Promise<Response>;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM customers WHERE id = $1 FOR UPDATE', [id]);
      conditional = fetch(`${a.baseUrl}/v1/customers/${id}`, {
        method: 'PATCH',
        headers: {
          Authorization: `Bearer ${store.keys.secret_test.token}`,
          'Content-Type': 'application/json',
          'If-Match': '*',
        },
        body: JSON.stringify({ first_name: 'Snapshot' }),
      });
      for (let waited = 0; ; waited += 20) {
        if ((await lockWaits(a.deps.db, '%customers%')) > 0) break;
        if (waited > 10_000) throw new Error('the conditional PATCH never waited for the row lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const heard = subscriptionsChangeHeardBy(a);
      webhookId = (await createWebhook(api, 'https://hooks.example.com/snapshot', { events: ['customer.updated'] })).id;
      await heard;
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    expect((await conditional).status).toBe(200);
    // The write after it starts after the subscription: it is delivered.
    const later = await api.PATCH('/v1/customers/{id}', { params: { path: { id } }, body: { first_name: 'Later' } });
    expect(later.response.status).toBe(200);
    // (The conditional write's own event is not: its snapshot shows no subscription.)
    expect((await listDeliveries(api, webhookId)).map((d) => d.event_type)).toEqual(['customer.updated']);
  });

  test('writes of other resources keep the cached event types: creates do not read the subscriptions again', async () => {
    const api = a.client(store.keys.secret_test.token);
    const cache = a.deps.caches!.webhookEventTypes;
    const original = cache.get.bind(cache);
    let reads = 0;
    cache.get = (projectId, key, tables, read) => original(projectId, key, tables, () => ((reads += 1), read()));
    try {
      for (let n = 0; n < 5; n++)
        expect((await api.POST('/v1/customers', { body: customer(200 + n) })).response.status).toBe(201);
      expect(reads).toBeLessThanOrEqual(1); // at most the first, if an earlier test's subscription write left it stale
      reads = 0;
      // The table notification of the subscription write is held back: only this process's own invalidation can
      // make the cached types stale (and a notification arriving between the create's two looks at the cache,
      // its one-statement check and the fan-out, would make it read twice).
      await withTableNotificationsHeld(a, async () => {
        await createWebhook(api, 'https://hooks.example.com/more', { events: ['customer.created'] });
        expect((await api.POST('/v1/customers', { body: customer(210) })).response.status).toBe(201);
      });
      expect(reads).toBe(1); // this process's subscription write made it stale at once
    } finally {
      cache.get = original;
    }
  });
});
