import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { startPgBouncer, type RunningPgBouncer } from '../../setup/pgbouncer.js';
import { byId } from '../../setup/requests.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

// Two app processes on one database through PgBouncer in transaction mode with a small server pool, as
// tests/integration/checkout/pgbouncer.test.ts runs them: return requests of one order queue on its row lock.

let bouncer: RunningPgBouncer;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
beforeAll(async () => {
  database = await createTestDatabase();
  bouncer = await startPgBouncer(process.env.TEST_ADMIN_URL!, { poolSize: 3 });
  const pooled = bouncer.url(database.directUrl);
  const config = { databaseUrl: pooled, databaseDirectUrl: database.directUrl };
  a = await startTestApp({ databaseUrl: pooled, config });
  b = await startTestApp({ databaseUrl: pooled, config });
  store = await createProject(a, { currency: 'EUR' });
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await bouncer?.stop();
  await database?.drop();
});

describe('createOrderReturn behind PgBouncer, two processes', () => {
  test('10 concurrent return requests of one unit each for 3 shipped units: exactly 3 are recorded', async () => {
    const api = a.client(store.keys.secret_test.token);
    const location = store.project.default_location_id;
    const product = await createProduct(api, { variants: [{ title: 'Only', price: 2500 }] });
    const variantId = product.variants[0].id;
    await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location, available: 5 } });
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 3 }]);
    const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
    const lineId = order.line_items[0].id;
    await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: { location_id: location, line_items: [{ line_item_id: lineId, quantity: 3 }] },
    });
    const clients = [a, b].map((app) => app.client(store.keys.secret_test.token));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        clients[i % 2].POST('/v1/orders/{id}/returns', {
          ...byId(order.id),
          body: { line_items: [{ line_item_id: lineId, quantity: 1 }], reason: 'unwanted' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 400)).toHaveLength(7);
    expect(await a.deps.db.return.count({ where: { orderId: order.id } })).toBe(3);
    const read = (await api.GET('/v1/orders/{id}', byId(order.id))).data!.data;
    expect('returns' in read && read.returns).toHaveLength(3);
  });
});
