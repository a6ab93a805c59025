import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { usePooledApps } from '../../setup/pooled-apps.js';

// Two app processes on one database through PgBouncer in transaction mode with a small server pool, as
// tests/integration/checkout/pgbouncer.test.ts runs them: one customer's balance is spent at most once across both.

const pooled = usePooledApps({ payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 });

describe('completeCheckout with store_credit behind PgBouncer, two processes', () => {
  test('20 concurrent completions of 1000 each on a balance of 7000: 7 spend it, 13 answer 409, balance 0', async () => {
    const { a, b, store } = pooled;
    const api = a.client(store.keys.secret_test.token);
    const product = await createProduct(api, {
      variants: Array.from({ length: 20 }, (_, i) => ({ title: `Box ${i}`, price: 2500 })),
    });
    for (const variant of product.variants) {
      await api.PUT('/v1/inventory-levels', {
        body: { variant_id: variant.id, location_id: store.project.default_location_id, available: 5 },
      });
    }
    const session = await registerCustomer(storefront(a, store.keys.publishable_test.token));
    const customerId = session.customer.id;
    await issueCredit(api, customerId, 7000);
    const shops = [a, b].map((app) => signedIn(app, store.keys.publishable_test.token, session.access_token));
    const checkouts = await Promise.all(
      product.variants.map((variant, i) =>
        startCheckout(shops[i % 2], {
          currency: product.currency,
          email: 'jane@example.com',
          shipping_address: BERLIN,
          lines: [{ variant_id: variant.id, quantity: 1 }],
        }),
      ),
    );
    const answers = await Promise.all(
      checkouts.map((started, i) =>
        shops[i % 2].POST('/v1/checkouts/{id}/complete', {
          params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
          body: { store_credit: { amount: 1000 }, payment: { token: 'tok_test_success' } },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 409)).toHaveLength(13);
    expect(new Set(answers.filter((x) => x.error).map((x) => x.error!.error.code))).toEqual(
      new Set(['insufficient_store_credit']),
    );
    expect(await balanceOf(api, customerId)).toBe(0);
    const entries = await a.deps.db.storeCreditTransaction.findMany({ where: { customerId } });
    expect(entries.reduce((total, entry) => total + Number(entry.amount), 0)).toBe(0);
    expect(entries.filter((entry) => entry.type === 'payment')).toHaveLength(7);
    expect(entries.every((entry) => entry.balanceAfter >= 0n)).toBe(true);
  });
});
