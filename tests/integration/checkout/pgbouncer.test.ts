import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { usePooledApps } from '../../setup/pooled-apps.js';
import { sentUntilServed } from '../../setup/requests.js';

// Two app processes on one database through PgBouncer in transaction mode with a small server pool, as
// tests/integration/db/pgbouncer.test.ts runs them: the last units are sold once across both.

const pooled = usePooledApps({ payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 });

describe('completeCheckout behind PgBouncer, two processes', () => {
  test('50 concurrent completions for the last 5 units: 5 orders, 45 answer 409 out_of_stock, nothing left held', async () => {
    const { a, b, store } = pooled;
    const api = a.client(store.keys.secret_test.token);
    const product = await createProduct(api, { variants: [{ title: 'Last ones', price: 2500 }] });
    const variantId = product.variants[0].id;
    await api.PUT('/v1/inventory-levels', {
      body: { variant_id: variantId, location_id: store.project.default_location_id, available: 5 },
    });
    const shops = [a, b].map((app) => storefront(app, store.keys.publishable_test.token));
    const checkouts = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        startCheckout(shops[i % 2], {
          currency: product.currency,
          email: `buyer${i}@example.com`,
          shipping_address: BERLIN,
          lines: [{ variant_id: variantId, quantity: 1 }],
        }),
      ),
    );
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
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(45);
    expect(new Set(answers.filter((x) => x.response.status === 409).map((x) => x.error!.error.code))).toEqual(
      new Set(['out_of_stock']),
    );
    const variant = (await api.GET('/v1/variants/{id}', { params: { path: { id: variantId } } })).data!.data;
    expect(variant.inventory_quantity).toBe(0);
    expect(await a.deps.db.order.count({ where: { projectId: store.project.id } })).toBe(5);
    expect(await a.deps.db.inventoryReservation.count({ where: { checkoutId: { not: null } } })).toBe(0);
  }, 120_000);
});
