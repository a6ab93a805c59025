import { describe, expect, test } from '@jest/globals';
import { idempotencyHeader } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

// A request that holds a pooled connection (its transaction, a keyed request's claim) and then asks the pool for a
// second one waits for itself once every connection is held: after 5 s it answers 503. The concurrency tests retry
// such a 503, as a client does, so they would not show that wait; with a pool of one connection it is certain.
const app = useApp({ poolSize: 1 });

describe('the writes of a sale on a pool of one connection', () => {
  test('a keyed create, checkouts with a code completed with and without a key, a refund, a draft order completed: no 503', async () => {
    const store = await createProject(app, {
      currency: 'EUR',
      payment_provider: 'test',
      checkouts_per_ip_per_minute: 1_000_000,
    });
    const api = app.client(store.keys.secret_test.token);
    const shop = storefront(app, store.keys.publishable_test.token);

    const customer = await api.POST('/v1/customers', {
      params: { header: idempotencyHeader('one-connection-customer') },
      body: { email: 'jane@example.com', first_name: 'Jane', last_name: 'Doe' },
    });
    expect(customer.response.status).toBe(201);

    const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 5000 }] });
    const variantId = product.variants[0].id;
    const level = await api.PUT('/v1/inventory-levels', {
      body: { variant_id: variantId, location_id: store.project.default_location_id, available: 5 },
    });
    expect(level.response.status).toBe(200);
    const discount = await api.POST('/v1/discounts', {
      body: { code: 'ONE', title: '10 % off', type: 'percentage', value: 10, usage_limit: 3 },
    });
    expect(discount.response.status).toBe(201);

    // Without a key a request's writes take connections from the pool as they go; with one, the request holds one
    // connection (the key's transaction) from start to end: both ways.
    const orders = [];
    for (const header of [{}, idempotencyHeader('one-connection-complete')]) {
      const started = await startCheckout(shop, {
        currency: 'EUR',
        email: 'jane@example.com',
        shipping_address: BERLIN,
        lines: [{ variant_id: variantId, quantity: 1 }],
      });
      const applied = await shop.POST('/v1/checkouts/{id}/discount-codes', {
        ...withSecret(started.checkout.id, started.secret),
        body: { code: 'one' },
      });
      expect(applied.response.status).toBe(200);
      const completed = await shop.POST('/v1/checkouts/{id}/complete', {
        params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret, ...header } },
        body: { payment: { token: 'tok_test_success' } },
      });
      expect(completed.response.status).toBe(201);
      orders.push(completed.data!.data);
    }
    expect(orders.map((order) => order.discount)).toEqual([500, 500]);
    const order = orders[0];

    const refund = await api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: 1000 } });
    expect(refund.response.status).toBe(201);

    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 1 }]);
    const fromDraft = await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
    expect(fromDraft.response.status).toBe(201);

    const variant = (await api.GET('/v1/variants/{id}', byId(variantId))).data!.data;
    expect(variant.inventory_quantity).toBe(2);
  });
});
