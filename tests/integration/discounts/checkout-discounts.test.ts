import { describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import { sentUntilServed } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

type Checkout = components['schemas']['Checkout'];
type Order = components['schemas']['Order'];

interface Shop {
  project: CreatedProject;
  api: CommerceClient;
  shop: CommerceClient;
}

/** A project in EUR with exclusive 19 % tax in DE (so tax after discounts shows), paid by test tokens. */
async function newShop(tax: { enabled: boolean; inclusive: boolean } = { enabled: true, inclusive: false }) {
  const project = await createProject(app, {
    currency: 'EUR',
    payment_provider: 'test',
    checkouts_per_ip_per_minute: 1_000_000,
    tax: { ...tax, rates: [{ country: 'DE', rate: 0.19 }] },
  });
  return {
    project,
    api: app.client(project.keys.secret_test.token),
    shop: storefront(app, project.keys.publishable_test.token),
  } satisfies Shop;
}

/** A stocked product of one variant at `price`, with product type and collection when given. */
async function product(shop: Shop, price: number, over: { product_type?: string; title?: string } = {}) {
  const created = await createProduct(shop.api, {
    title: over.title ?? 'Trail Runner',
    product_type: over.product_type,
    variants: [{ title: 'One', price }],
  });
  await shop.api.PUT('/v1/inventory-levels', {
    body: {
      variant_id: created.variants[0].id,
      location_id: shop.project.project.default_location_id,
      available: 1000,
    },
  });
  return { productId: created.id, variantId: created.variants[0].id };
}

const open = (shop: Shop, lines: Array<{ variant_id: string; quantity: number }>, email = 'jane@example.com') =>
  startCheckout(shop.shop, { currency: 'EUR', email, shipping_address: BERLIN, lines });

const code = (shop: Shop, body: Record<string, unknown>) =>
  shop.api.POST('/v1/discounts', { body: { title: 'Code', type: 'percentage', value: 10, ...body } as never });

const promotion = (shop: Shop, body: Record<string, unknown>) =>
  shop.api.POST('/v1/promotions', { body: { title: 'Promotion', type: 'percentage', value: 10, ...body } as never });

const apply = (shop: Shop, started: StartedCheckout, text: string) =>
  shop.shop.POST('/v1/checkouts/{id}/discount-codes', {
    ...withSecret(started.checkout.id, started.secret),
    body: { code: text },
  });

const complete = (shop: Shop, started: StartedCheckout) =>
  shop.shop.POST('/v1/checkouts/{id}/complete', {
    ...withSecret(started.checkout.id, started.secret),
    body: { payment: { token: 'tok_test_success' } },
  });

/** Completes the checkout and checks the order and the confirmation e-mail carry the checkout's amounts. */
async function completeAndCompare(shop: Shop, started: StartedCheckout, checkout: Checkout): Promise<Order> {
  const answer = await complete(shop, started);
  expect(answer.response.status).toBe(201);
  const order = answer.data!.data as Order;
  expect(order).toMatchObject({
    subtotal: checkout.subtotal,
    tax: checkout.tax,
    shipping_cost: checkout.shipping_cost,
    discount: checkout.discount,
    total: checkout.total,
    discount_applications: checkout.discount_applications,
  });
  order.line_items.forEach((item, i) => expect(item.discount ?? 0).toBe(checkout.lines[i].discount));
  const outbox = (
    await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: shop.project.project.id }, query: { to: checkout.email! } },
    })
  ).data!.data;
  const mail = outbox.find((e) => (e.data as { order_id: string }).order_id === order.id)!;
  const euros = (minor: number) => `${(minor / 100).toFixed(2)} EUR`;
  expect(mail.text).toContain(`Total: ${euros(order.total)}`);
  if (order.discount > 0) expect(mail.text).toContain(`Discount: -${euros(order.discount)}`);
  return order;
}

describe('applyCheckoutDiscountCode: kinds, totals on checkout, order and e-mail', () => {
  test('percentage off the order: per line half-up, tax computed after the discount', async () => {
    const shop = await newShop();
    const a = await product(shop, 1999);
    const b = await product(shop, 995);
    await code(shop, { code: 'TEN', value: 10 });
    const started = await open(shop, [
      { variant_id: a.variantId, quantity: 1 },
      { variant_id: b.variantId, quantity: 1 },
    ]);
    const answer = await apply(shop, started, 'ten');
    expect(answer.response.status).toBe(200);
    const checkout = answer.data!.data;
    // 10 % of 1999 = 199.9 -> 200; of 995 = 99.5 -> 100. Tax 19 % of 1799 = 341.81 -> 342, of 895 = 170.05 -> 170.
    expect(checkout.lines.map((l) => l.discount)).toEqual([200, 100]);
    expect(checkout).toMatchObject({
      subtotal: 2994,
      discount: 300,
      tax: 512,
      total: 2994 - 300 + 512,
      discount_codes: ['TEN'],
    });
    expect(checkout.discount_applications).toEqual([
      {
        source: 'code',
        id: expect.stringMatching(/^disc_/),
        code: 'TEN',
        title: 'Code',
        type: 'percentage',
        amount: 300,
        lines: [
          { line_index: 0, amount: 200 },
          { line_index: 1, amount: 100 },
        ],
        shipping_amount: 0,
      },
    ]);
    await completeAndCompare(shop, started, checkout);
  });

  test('fixed amount off the order: in proportion, the leftover minor unit to the largest line', async () => {
    const shop = await newShop({ enabled: false, inclusive: false });
    const a = await product(shop, 1000);
    const b = await product(shop, 2000);
    await code(shop, { code: 'FIVE', type: 'fixed_amount', value: 500 });
    const started = await open(shop, [
      { variant_id: a.variantId, quantity: 1 },
      { variant_id: b.variantId, quantity: 1 },
    ]);
    const checkout = (await apply(shop, started, 'FIVE')).data!.data;
    // 500 x 1000 / 3000 = 166.67 -> 166; 500 x 2000 / 3000 = 333.33 -> 333; the leftover unit to the 2000 line.
    expect(checkout.lines.map((l) => l.discount)).toEqual([166, 334]);
    expect(checkout).toMatchObject({ discount: 500, total: 2500 });
    await completeAndCompare(shop, started, checkout);
  });

  test('fixed amount off matching lines (product type) and free shipping stack when combinable', async () => {
    const shop = await newShop({ enabled: false, inclusive: false });
    const sock = await product(shop, 800, { product_type: 'Socks' });
    const shoe = await product(shop, 9000, { product_type: 'Shoes' });
    await code(shop, {
      code: 'SOCKS3',
      type: 'fixed_amount',
      value: 300,
      target: 'lines',
      combinable: true,
      conditions: { product_types: ['socks'] },
    });
    await code(shop, { code: 'SHIPFREE', type: 'free_shipping', value: 0, combinable: true });
    const zone = await createZone(shop.api, { countries: ['DE'] });
    const rate = await createRate(shop.api, zone.id, { currency: 'EUR', price: 490 });
    const started = await open(shop, [
      { variant_id: sock.variantId, quantity: 2 },
      { variant_id: shoe.variantId, quantity: 1 },
    ]);
    await shop.shop.PATCH('/v1/checkouts/{id}', {
      ...withSecret(started.checkout.id, started.secret),
      body: { shipping_rate_id: rate.id },
    });
    await apply(shop, started, 'SOCKS3');
    const checkout = (await apply(shop, started, 'SHIPFREE')).data!.data;
    expect(checkout.lines.map((l) => l.discount)).toEqual([300, 0]);
    expect(checkout.discount_applications.map((a) => [a.code, a.amount, a.shipping_amount])).toEqual([
      ['SOCKS3', 300, 0],
      ['SHIPFREE', 490, 490],
    ]);
    expect(checkout).toMatchObject({ subtotal: 10600, shipping_cost: 490, discount: 790, total: 10300 });
    await completeAndCompare(shop, started, checkout);
  });

  test('automatic promotions apply by themselves: buy 2 get 1 free and a tier by subtotal, by priority', async () => {
    const shop = await newShop({ enabled: true, inclusive: true });
    const sock = await product(shop, 999, { product_type: 'Socks' });
    await promotion(shop, {
      title: 'Socks 3 for 2',
      type: 'buy_x_get_y',
      value: 0,
      target: 'lines',
      combinable: true,
      priority: 10,
      conditions: { product_types: ['Socks'] },
      buy_x_get_y: { buy_quantity: 2, get_quantity: 1, get_percentage: 100 },
    });
    await promotion(shop, {
      title: 'Spend more, save more',
      type: 'tiered',
      value: 0,
      combinable: true,
      priority: 1,
      tiers: [
        { min_subtotal: 2000, type: 'fixed_amount', value: 100 },
        { min_subtotal: 5000, type: 'percentage', value: 5 },
      ],
    });
    const started = await open(shop, [{ variant_id: sock.variantId, quantity: 3 }]);
    const checkout = started.checkout;
    // 3 socks: one free (999); the tier on 2997 is 100 off, from the 1998 left.
    expect(checkout.discount_applications.map((a) => [a.source, a.title, a.amount])).toEqual([
      ['promotion', 'Socks 3 for 2', 999],
      ['promotion', 'Spend more, save more', 100],
    ]);
    // Inclusive 19 %: the tax is the part of 1898 that is tax: 1898 x 0.19 / 1.19 = 303.04 -> 303.
    expect(checkout).toMatchObject({ subtotal: 2997, discount: 1099, tax: 303, total: 1898 });
    await completeAndCompare(shop, started, checkout);
  });

  test('a code that is not combinable is refused while a promotion applies (not_applicable, not_combinable)', async () => {
    const shop = await newShop();
    const a = await product(shop, 5000);
    await promotion(shop, { title: '5 % off', value: 5, combinable: true });
    await code(shop, { code: 'ALONE', value: 20, combinable: false });
    const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }]);
    const answer = await apply(shop, started, 'ALONE');
    expect(answer.response.status).toBe(422);
    expect(answer.error).toEqual({
      error: {
        code: 'discount_not_applicable',
        message: 'The code ALONE cannot be combined with the reductions already applied.',
        field: 'code',
        reason: 'not_combinable',
      },
    });
  });
});

describe('applyCheckoutDiscountCode: refusals', () => {
  test('invalid, expired, not yet started, conditions failing with their reason; nothing changes', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    await code(shop, { code: 'OLD', ends_at: '2020-01-01T00:00:00Z' });
    await code(shop, { code: 'LATER', starts_at: '2099-01-01T00:00:00Z' });
    await code(shop, { code: 'BIG', conditions: { min_subtotal: 5000 } });
    await code(shop, { code: 'USD', conditions: { currency: 'USD' } });
    const vip = await createCustomer(shop.api, { email: 'vip@example.com' });
    const other = await product(shop, 500, { title: 'Other' });
    await code(shop, { code: 'VIP', conditions: { customer_ids: [vip.id] } });
    await code(shop, { code: 'OTHER', conditions: { product_ids: [other.productId] } });
    const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }]);
    const refusals = [];
    for (const text of ['NOPE', 'OLD', 'LATER', 'BIG', 'USD', 'VIP', 'OTHER']) {
      const answer = await apply(shop, started, text);
      refusals.push([
        text,
        answer.response.status,
        answer.error!.error.code,
        (answer.error!.error as { reason?: string }).reason,
      ]);
    }
    expect(refusals).toEqual([
      ['NOPE', 422, 'discount_invalid', undefined],
      ['OLD', 422, 'discount_expired', undefined],
      ['LATER', 422, 'discount_expired', undefined],
      ['BIG', 422, 'discount_not_applicable', 'min_subtotal'],
      ['USD', 422, 'discount_not_applicable', 'currency'],
      ['VIP', 422, 'discount_not_applicable', 'customer'],
      ['OTHER', 422, 'discount_not_applicable', 'products'],
    ]);
    const after = (await shop.shop.GET('/v1/checkouts/{id}', withSecret(started.checkout.id, started.secret))).data!
      .data;
    expect(after).toMatchObject({ discount_codes: [], discount: 0, updated_at: started.checkout.updated_at });
  });

  test('an archived code is invalid; a code used up answers 409 usage_limit_reached', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    const archived = await code(shop, { code: 'ARCH' });
    await shop.api.PATCH('/v1/discounts/{id}', {
      params: { path: { id: archived.data!.data.id } },
      body: { status: 'archived' },
    });
    await code(shop, { code: 'ONCE', usage_limit: 1 });
    const first = await open(shop, [{ variant_id: a.variantId, quantity: 1 }]);
    expect((await apply(shop, first, 'ARCH')).error!.error.code).toBe('discount_invalid');
    expect((await apply(shop, first, 'ONCE')).response.status).toBe(200);
    expect((await complete(shop, first)).response.status).toBe(201);
    const second = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], 'other@example.com');
    const refused = await apply(shop, second, 'ONCE');
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error).toEqual({
      code: 'usage_limit_reached',
      message: 'The code ONCE has reached its usage limit.',
      field: 'code',
    });
  });

  test('the per-customer limit counts a guest by e-mail', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    await code(shop, { code: 'FIRST', usage_limit_per_customer: 1 });
    const first = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], 'Same@Example.com');
    await apply(shop, first, 'FIRST');
    expect((await complete(shop, first)).response.status).toBe(201);
    const again = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], 'same@example.com');
    expect((await apply(shop, again, 'FIRST')).error!.error.code).toBe('usage_limit_reached');
    const someoneElse = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], 'else@example.com');
    expect((await apply(shop, someoneElse, 'FIRST')).response.status).toBe(200);
  });
});

describe('createCheckout with discount_codes', () => {
  test('holds each code once, priced as applying it after the lines would be', async () => {
    const shop = await newShop();
    const a = await product(shop, 2000);
    await code(shop, { code: 'LINK10' });
    const lines = [{ variant_id: a.variantId, quantity: 2 }];
    const atCreation = await startCheckout(shop.shop, {
      currency: 'EUR',
      email: 'link@example.com',
      shipping_address: BERLIN,
      lines,
      discount_codes: ['link10', 'LINK10'],
    });
    const afterwards = await open(shop, lines, 'link@example.com');
    const applied = (await apply(shop, afterwards, 'link10')).data!.data;
    expect(atCreation.checkout.discount_codes).toEqual(['LINK10']);
    const amounts = (c: Checkout) => [c.subtotal, c.discount, c.tax, c.total, c.discount_applications];
    expect(amounts(atCreation.checkout)).toEqual(amounts(applied));
    expect(atCreation.checkout.discount).toBe(400);
    await completeAndCompare(shop, atCreation, atCreation.checkout);
  });

  test('a code on a checkout without lines is held and applies once lines are added', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    await code(shop, { code: 'EARLY' });
    const started = await startCheckout(shop.shop, { currency: 'EUR', discount_codes: ['early'] });
    expect(started.checkout).toMatchObject({ discount_codes: ['EARLY'], discount_applications: [], discount: 0 });
    const added = await shop.shop.POST('/v1/checkouts/{id}/lines', {
      ...withSecret(started.checkout.id, started.secret),
      body: { lines: [{ variant_id: a.variantId, quantity: 1 }] },
    });
    expect(added.response.status).toBe(201);
    expect(added.data!.data).toMatchObject({ discount_codes: ['EARLY'], discount: 100 });
  });

  test('a refused code names discount_codes[i] and creates nothing', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    await code(shop, { code: 'GOOD' });
    await code(shop, { code: 'BIG', conditions: { min_subtotal: 5000 } });
    const used = (await code(shop, { code: 'GONE', usage_limit: 1 })).data!.data.id;
    await app.deps.db.discount.update({ where: { id: used }, data: { timesUsed: 1 } });
    const lines = [{ variant_id: a.variantId, quantity: 1 }];
    const create = (discount_codes: string[]) =>
      shop.shop.POST('/v1/checkouts', { body: { currency: 'EUR', lines, discount_codes } });
    const unknown = await create(['good', 'nope']);
    expect([unknown.response.status, unknown.error?.error]).toEqual([
      422,
      { code: 'discount_invalid', message: 'nope is not a valid discount code.', field: 'discount_codes[1]' },
    ]);
    const unmet = await create(['big']);
    expect([unmet.response.status, unmet.error?.error]).toMatchObject([
      422,
      { code: 'discount_not_applicable', field: 'discount_codes[0]', reason: 'min_subtotal' },
    ]);
    const usedUp = await create(['GOOD', 'gone']);
    expect([usedUp.response.status, usedUp.error?.error]).toMatchObject([
      409,
      { code: 'usage_limit_reached', field: 'discount_codes[1]' },
    ]);
    expect(await app.deps.db.checkout.count({ where: { projectId: shop.project.project.id } })).toBe(0);
  });
});

describe('removeCheckoutDiscountCode', () => {
  test('removes the code case-insensitively and recomputes; a code not applied is 404', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    await code(shop, { code: 'GONE' });
    const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }]);
    await apply(shop, started, 'GONE');
    const params = {
      params: { path: { id: started.checkout.id, code: 'gone' }, header: { 'X-Checkout-Secret': started.secret } },
    };
    const removed = await shop.shop.DELETE('/v1/checkouts/{id}/discount-codes/{code}', params);
    expect(removed.response.status).toBe(200);
    expect(removed.data!.data).toMatchObject({ discount_codes: [], discount_applications: [], discount: 0 });
    expect((await shop.shop.DELETE('/v1/checkouts/{id}/discount-codes/{code}', params)).response.status).toBe(404);
  });
});

describe('usage counted when the order is created', () => {
  // A completion that waits more than 5 s for one of the test app's 5 connections answers 503 service_unavailable,
  // nothing written: under a loaded machine's CPU the 50 queue that long. A client sends a 503 again after its
  // Retry-After (sentUntilServed), so each checkout's answer here is its last.
  test('50 concurrent completions with a code limited to 10: exactly 10 discounted orders, 40 answer 409', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    const created = await code(shop, { code: 'TEN4TEN', usage_limit: 10 });
    const checkouts = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], `buyer${i}@example.com`);
        expect((await apply(shop, started, 'TEN4TEN')).response.status).toBe(200);
        return started;
      }),
    );
    const answers = await Promise.all(checkouts.map((started) => sentUntilServed(() => complete(shop, started))));
    // Every answer's status and error code, counted: a failure names what the others answered.
    const outcomes: Record<string, number> = {};
    for (const answer of answers) {
      const outcome = `${answer.response.status} ${answer.error?.error.code ?? ''}`.trim();
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    expect(outcomes).toEqual({ '201': 10, '409 usage_limit_reached': 40 });
    const orders = answers.filter((x) => x.response.status === 201).map((x) => x.data!.data as Order);
    expect(orders.every((order) => order.discount === 100)).toBe(true);
    const discount = await shop.api.GET('/v1/discounts/{id}', { params: { path: { id: created.data!.data.id } } });
    expect(discount.data!.data.times_used).toBe(10);
    expect(await app.deps.db.order.count({ where: { projectId: shop.project.project.id } })).toBe(10);
    // 50 checkouts and completions on a machine shared with other suites.
  }, 120_000);

  test('cancelling an order gives its use back', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    const created = await code(shop, { code: 'BACK', usage_limit: 1 });
    const first = await open(shop, [{ variant_id: a.variantId, quantity: 1 }]);
    await apply(shop, first, 'BACK');
    const order = (await complete(shop, first)).data!.data as Order;
    const id = created.data!.data.id;
    expect((await shop.api.GET('/v1/discounts/{id}', { params: { path: { id } } })).data!.data.times_used).toBe(1);
    const cancelled = await shop.api.POST('/v1/orders/{id}/cancel', {
      params: { path: { id: order.id } },
      body: { reason: 'customer' },
    });
    expect(cancelled.response.status).toBe(200);
    expect((await shop.api.GET('/v1/discounts/{id}', { params: { path: { id } } })).data!.data.times_used).toBe(0);
    const second = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], 'next@example.com');
    expect((await apply(shop, second, 'BACK')).response.status).toBe(200);
    expect((await complete(shop, second)).response.status).toBe(201);
  });

  test('a code without limits counts its orders without a lock; a first limit counts from the uses so far', async () => {
    const shop = await newShop();
    const a = await product(shop, 1000);
    const id = (await code(shop, { code: 'OPEN10' })).data!.data.id;
    const timesUsed = async () =>
      (await shop.api.GET('/v1/discounts/{id}', { params: { path: { id } } })).data!.data.times_used;
    const checkouts = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], `open${i}@example.com`);
        expect((await apply(shop, started, 'OPEN10')).response.status).toBe(200);
        return started;
      }),
    );
    const orders = (await Promise.all(checkouts.map((started) => complete(shop, started)))).map((answer) => {
      expect(answer.response.status).toBe(201);
      return answer.data!.data as Order;
    });
    expect(await timesUsed()).toBe(6);
    const cancelled = await shop.api.POST('/v1/orders/{id}/cancel', {
      params: { path: { id: orders[0].id } },
      body: { reason: 'customer' },
    });
    expect(cancelled.response.status).toBe(200);
    expect(await timesUsed()).toBe(5);
    // A limit of 6 now leaves one use: the five orders standing count against it.
    const limited = await shop.api.PATCH('/v1/discounts/{id}', { params: { path: { id } }, body: { usage_limit: 6 } });
    expect(limited.data!.data.times_used).toBe(5);
    const [last, over] = await Promise.all(
      ['last@example.com', 'over@example.com'].map(async (email) => {
        const started = await open(shop, [{ variant_id: a.variantId, quantity: 1 }], email);
        expect((await apply(shop, started, 'OPEN10')).response.status).toBe(200);
        return started;
      }),
    );
    expect((await complete(shop, last)).response.status).toBe(201);
    const refused = await complete(shop, over);
    expect([refused.response.status, refused.error?.error.code]).toEqual([409, 'usage_limit_reached']);
    expect(await timesUsed()).toBe(6);
  });
});

describe('deletePromotion racing the completions that got it', () => {
  test('every completion places its order; a promotion an order used is archived, not deleted', async () => {
    const shop = await newShop();
    const { variantId } = await product(shop, 5000);
    const statuses: number[] = [];
    const promotions: string[] = [];
    for (let round = 0; round < 10; round++) {
      const created = await promotion(shop, { title: `Round ${round}` });
      expect(created.response.status).toBe(201);
      const promotionId = (created.data as { data: { id: string } }).data.id;
      promotions.push(promotionId);
      const started: StartedCheckout[] = [];
      for (let i = 0; i < 10; i++) started.push(await open(shop, [{ variant_id: variantId, quantity: 1 }]));
      expect(started[0].checkout.discount).toBeGreaterThan(0);
      // The delete lands among the completions, a little later each round.
      const [answers, deleted] = await Promise.all([
        Promise.all(started.map((checkout) => complete(shop, checkout))),
        new Promise((resolve) => setTimeout(resolve, (round % 5) * 4)).then(() =>
          shop.api.DELETE('/v1/promotions/{id}', { params: { path: { id: promotionId } } }),
        ),
      ]);
      statuses.push(...answers.map((answer) => answer.response.status));
      expect(deleted.response.status).toBe(204);
    }
    expect(statuses).toEqual(statuses.map(() => 201));
    // Each order's use is recorded against a promotion that still exists (archived once used).
    const uses = await app.deps.db.discountRedemption.groupBy({
      by: ['discountId'],
      where: { discountId: { in: promotions } },
      _count: true,
    });
    const left = await app.deps.db.discount.findMany({ where: { id: { in: promotions } } });
    expect(left.map((row) => [row.id, row.status]).sort()).toEqual(
      uses.map((use) => [use.discountId, 'archived']).sort(),
    );
  }, 120_000);
});

describe('refunds of discounted orders', () => {
  test('a refund of returned units without an amount pays back what was paid per unit, leftovers on the last units', async () => {
    const shop = await newShop();
    const sock = await product(shop, 999);
    const shoe = await product(shop, 5000);
    await code(shop, { code: 'TENOFF', value: 10 });
    const started = await open(shop, [
      { variant_id: sock.variantId, quantity: 3 },
      { variant_id: shoe.variantId, quantity: 1 },
    ]);
    await apply(shop, started, 'TENOFF');
    const order = (await complete(shop, started)).data!.data as Order;
    // Socks: 2997 less 300 (299.7 half-up) = 2697; shoe: 5000 less 500 = 4500. Tax 19 % added: 512.43 -> 512 and
    // 855 (total 1367), allocated in proportion to 2697 / 4500: 512.27 -> 512, 854.73 -> 854, the leftover unit to the shoe.
    expect(order).toMatchObject({ discount: 800, tax: 1367, total: 7997 - 800 + 1367 });
    expect(order.line_items.map((item) => item.discount)).toEqual([300, 500]);
    const location = shop.project.project.default_location_id;
    await shop.api.POST('/v1/orders/{id}/fulfillments', {
      params: { path: { id: order.id } },
      body: { location_id: location, line_items: [{ line_item_index: 0, quantity: 3 }] },
    });
    const refund = (units: number) =>
      shop.api.POST('/v1/orders/{id}/refunds', {
        params: { path: { id: order.id } },
        body: { line_items: [{ line_item_index: 0, quantity: units }] },
      });
    // The sock line paid 2697 + 512 = 3209 for 3 units: 1069, then 2 units for 3209 - 1069 = 2140.
    const first = await refund(1);
    expect(first.response.status).toBe(201);
    expect(first.data!.data.amount).toBe(1069);
    const rest = await refund(2);
    expect(rest.data!.data.amount).toBe(2140);
  });
});
