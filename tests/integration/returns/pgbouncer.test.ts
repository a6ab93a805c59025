import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { usePooledApps } from '../../setup/pooled-apps.js';
import { byId } from '../../setup/requests.js';

// Two app processes on one database through PgBouncer in transaction mode with a small server pool, as
// tests/integration/checkout/pgbouncer.test.ts runs them: return requests of one order queue on its row lock.

const pooled = usePooledApps({ currency: 'EUR' });

describe('createOrderReturn behind PgBouncer, two processes', () => {
  test('10 concurrent return requests of one unit each for 3 shipped units: exactly 3 are recorded', async () => {
    const { a, b, store } = pooled;
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
