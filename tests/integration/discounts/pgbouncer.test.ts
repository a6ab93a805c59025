import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { usePooledApps } from '../../setup/pooled-apps.js';
import { sentUntilServed } from '../../setup/requests.js';

// Two app processes on one database through PgBouncer in transaction mode with a small server pool (usePooledApps,
// as tests/integration/checkout/pgbouncer.test.ts runs them): a code limited to 10 uses is used 10 times across both.

const pooled = usePooledApps({ payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 });

describe('discount code usage behind PgBouncer, two processes', () => {
  test('50 concurrent completions with a code limited to 10: 10 discounted orders, 40 answer 409 usage_limit_reached', async () => {
    const { a, b, store } = pooled;
    const api = a.client(store.keys.secret_test.token);
    const product = await createProduct(api, { variants: [{ title: 'Plenty', price: 2500 }] });
    const variantId = product.variants[0].id;
    await api.PUT('/v1/inventory-levels', {
      body: { variant_id: variantId, location_id: store.project.default_location_id, available: 100 },
    });
    const discount = await api.POST('/v1/discounts', {
      body: { code: 'LIMITED', title: '10 % off', type: 'percentage', value: 10, usage_limit: 10 },
    });
    const shops = [a, b].map((app) => storefront(app, store.keys.publishable_test.token));
    const checkouts = [];
    for (let i = 0; i < 50; i += 1) {
      const started = await startCheckout(shops[i % 2], {
        currency: product.currency,
        email: `buyer${i}@example.com`,
        shipping_address: BERLIN,
        lines: [{ variant_id: variantId, quantity: 1 }],
      });
      const applied = await shops[i % 2].POST('/v1/checkouts/{id}/discount-codes', {
        params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
        body: { code: 'limited' },
      });
      expect(applied.response.status).toBe(200);
      checkouts.push(started);
    }
    const answers = await Promise.all(
      checkouts.map((started, i) =>
        sentUntilServed(() =>
          shops[i % 2].POST('/v1/checkouts/{id}/complete', {
            params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
            body: { payment: { token: 'tok_test_success' } },
          }),
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(new Set(answers.filter((x) => x.response.status === 409).map((x) => x.error!.error.code))).toEqual(
      new Set(['usage_limit_reached']),
    );
    const read = await api.GET('/v1/discounts/{id}', { params: { path: { id: discount.data!.data.id } } });
    expect(read.data!.data.times_used).toBe(10);
    expect(await a.deps.db.order.count({ where: { projectId: store.project.id, discount: 250n } })).toBe(10);
    expect(await a.deps.db.order.count({ where: { projectId: store.project.id } })).toBe(10);
    // 50 checkouts and completions through a pool of 3 server connections.
  }, 120_000);
});
