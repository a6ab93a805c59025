/**
 * Completions and cancellations of one customer's orders lock a code's row, then the variants, then the customer's
 * store credit account (the order every writer takes them in), so racing ones queue instead of deadlocking:
 * PostgreSQL would end one of a deadlocked pair (40P01) and its request would fail. A checkout paying a draft
 * order used to lock the account first (its credit) and the variants later (the draft's completion).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { issueCredit } from '../../factories/store-credit.factory.js';
import { payToken } from '../../../src/modules/draft-orders/pay-link.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore({
  project: { currency: 'EUR', payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 },
});
const { app, api } = store;

let variantId: string;
beforeAll(async () => {
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: store.project.default_location_id, available: 100_000 },
  });
});

/** A customer, signed in, with store credit to spend. */
async function creditedCustomer() {
  const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
  await issueCredit(api, session.customer.id, 1_000_000);
  return { session, shop: signedIn(app, store.keys.publishable_test.token, session.access_token) };
}

/** A checkout of the variant for the customer. */
const plainCheckout = (customer: Awaited<ReturnType<typeof creditedCustomer>>) =>
  startCheckout(customer.shop, {
    currency: 'EUR',
    email: customer.session.customer.email,
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity: 1 }],
  });

/** A draft of the variant for the customer, and the checkout its pay link opens. */
async function draftCheckout(customerId: string): Promise<StartedCheckout> {
  const draft = await createDraftOrder(api, { currency: 'EUR', customer_id: customerId, shipping_address: BERLIN });
  await addItems(api, draft.id, [{ variant_id: variantId, quantity: 1 }]);
  const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: store.project.id } });
  const shop = storefront(app, store.keys.publishable_test.token);
  const opened = await shop.POST('/v1/checkouts/from-draft', { body: { token: payToken(project, draft.id) } });
  expect(opened.response.status).toBe(201);
  return { checkout: opened.data!.data, secret: opened.data!.client_secret };
}

/** Completes with some store credit and the rest paid by the test token (the merchant's key may spend credit). */
const complete = (client: CommerceClient, started: StartedCheckout) =>
  client.POST('/v1/checkouts/{id}/complete', {
    ...withSecret(started.checkout.id, started.secret),
    body: { store_credit: { amount: 100 }, payment: { token: 'tok_test_success' } },
  });

/** PostgreSQL's count of deadlocks in the test database so far. */
async function deadlocks(): Promise<number> {
  const [row] = await app.deps.db.$queryRaw<Array<{ deadlocks: bigint }>>`
    SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`;
  return Number(row.deadlocks);
}

describe("completeCheckout and cancelOrder: one customer's draft and ordinary checkouts, with store credit", () => {
  test('racing completions all place their orders, and no deadlock happens', async () => {
    const before = await deadlocks();
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      const customer = await creditedCustomer();
      const started: StartedCheckout[] = [];
      for (let i = 0; i < 8; i++) {
        started.push(await plainCheckout(customer));
        started.push(await draftCheckout(customer.session.customer.id));
      }
      const answers = await Promise.all(started.map((checkout) => complete(api, checkout)));
      statuses.push(...answers.map((answer) => answer.response.status));
    }
    expect({ statuses, deadlocks: (await deadlocks()) - before }).toEqual({
      statuses: statuses.map(() => 201),
      deadlocks: 0,
    });
  }, 120_000);

  test('cancelling orders with a refund (credit given back) racing draft checkouts: every request succeeds', async () => {
    const before = await deadlocks();
    const statuses: Array<[string, number]> = [];
    for (let round = 0; round < 2; round++) {
      const customer = await creditedCustomer();
      const orderIds: string[] = [];
      const drafts: StartedCheckout[] = [];
      for (let i = 0; i < 6; i++) {
        const placed = await complete(api, await plainCheckout(customer));
        expect(placed.response.status).toBe(201);
        orderIds.push((placed.data!.data as { id: string }).id);
        drafts.push(await draftCheckout(customer.session.customer.id));
      }
      const answers = await Promise.all(
        orderIds.flatMap((orderId, i) => [
          api
            .POST('/v1/orders/{id}/cancel', { ...byId(orderId), body: { reason: 'customer', refund: true } })
            .then((answer) => ['cancel', answer.response.status] as [string, number]),
          complete(api, drafts[i]).then((answer) => ['complete', answer.response.status] as [string, number]),
        ]),
      );
      statuses.push(...answers);
    }
    expect({ statuses, deadlocks: (await deadlocks()) - before }).toEqual({
      statuses: statuses.map(([kind]) => [kind, kind === 'cancel' ? 200 : 201]),
      deadlocks: 0,
    });
  }, 120_000);
});
