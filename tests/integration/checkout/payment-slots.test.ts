import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, type StartedCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { startStripeStandIn, STRIPE_PROJECT, type StripeStandIn } from '../../setup/stripe-stand-in.js';
import { useApp } from '../../setup/store.js';

// A completion through Stripe holds a pooled connection for Stripe's latency. The pool is the process's, shared by
// every store: without a bound, one store's completions on a slow Stripe held all ten connections and another
// store's product list answered 503 after 5 s (measured before payments/payment-slots.ts). Now they take at most
// half the pool, one store at most half of that.
let stand: StripeStandIn;
beforeAll(async () => {
  stand = await startStripeStandIn();
});
afterAll(async () => stand.close());
// The production pool (10 connections): 5 payment places, 3 for one store.
const app = useApp(() => ({ config: { stripeApiBase: stand.base }, poolSize: 10 }));

interface Store {
  project: CreatedProject;
  api: CommerceClient;
  shop: CommerceClient;
}

async function stripeStore(): Promise<Store> {
  const project = await createProject(app, STRIPE_PROJECT);
  return {
    project,
    api: app.client(project.keys.secret_test.token),
    shop: storefront(app, project.keys.publishable_test.token),
  };
}

/** `count` checkouts ready to complete, each for a product of its own (no two wait on one row lock). */
async function readyCheckouts(store: Store, count: number): Promise<StartedCheckout[]> {
  const started: StartedCheckout[] = [];
  for (let i = 0; i < count; i += 1) {
    const product = await createProduct(store.api, { title: `Lamp ${i}`, variants: [{ title: 'One', price: 4900 }] });
    await store.api.PUT('/v1/inventory-levels', {
      body: {
        variant_id: product.variants[0].id,
        location_id: store.project.project.default_location_id,
        available: 3,
      },
    });
    started.push(
      await startCheckout(store.shop, {
        currency: 'EUR',
        email: 'jane@example.com',
        shipping_address: BERLIN,
        lines: [{ variant_id: product.variants[0].id, quantity: 1 }],
      }),
    );
  }
  return started;
}

const complete = (store: Store, started: StartedCheckout) =>
  store.shop.POST('/v1/checkouts/{id}/complete', {
    params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
    body: { payment: { payment_method: 'pm_card_visa' } },
  });

test("one store's completions on a slow Stripe leave other stores their reads and their own payments", async () => {
  const busy = await stripeStore();
  const other = await stripeStore();
  const busyCheckouts = await readyCheckouts(busy, 24);
  const [otherCheckout] = await readyCheckouts(other, 1);
  stand.latencyMs = 3_000;
  try {
    const busyAnswers = Promise.all(busyCheckouts.map((started) => complete(busy, started)));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the busy store's places are taken
    const list = await other.api.GET('/v1/products', { params: { query: { limit: 5 } } });
    expect(list.response.status).toBe(200);
    const otherPaid = await complete(other, otherCheckout);
    expect(otherPaid.response.status).toBe(201);
    expect(otherPaid.data!.data).toMatchObject({ financial_status: 'paid' });

    // The busy store's own: three at a time, so those that wait past 5 s for a place answer 503 and charge nothing.
    const answers = await busyAnswers;
    const paid = answers.filter((answer) => answer.response.status === 201);
    const refused = answers.filter((answer) => answer.response.status !== 201);
    expect(paid.length).toBeGreaterThanOrEqual(3);
    for (const answer of refused) {
      expect(answer.response.status).toBe(503);
      expect(answer.error!.error).toMatchObject({
        code: 'service_unavailable',
        message: expect.stringContaining('nothing was charged'),
      });
      expect(answer.response.headers.get('Retry-After')).toBe('5');
    }
    const busyIntents = [...stand.intents.values()].filter((intent) =>
      busyCheckouts.some((started) => intent.metadata.checkout_id === started.checkout.id),
    );
    expect(busyIntents).toHaveLength(paid.length);
  } finally {
    stand.latencyMs = 0;
  }
}, 120_000);
