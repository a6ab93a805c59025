import { describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { payToken } from '../../../src/modules/draft-orders/pay-link.js';
import { formatMoney } from '../../../src/modules/draft-orders/payment-request.email.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { withSecret } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

// Codes and automatic promotions on draft orders (openapi.yaml, the discounts tag, "Draft orders"): the money maths
// and stacking of checkouts, the manual discount last, usage counted when the draft completes.

const app = useApp();

type Draft = components['schemas']['DraftOrder'];

const BERLIN = { line1: 'Friedrichstrasse 68', city: 'Berlin', postal_code: '10117', country: 'DE' };

interface Shop {
  project: CreatedProject;
  api: CommerceClient;
}

/** A project in EUR with exclusive 19 % tax in DE, so tax after the reductions shows. */
async function newShop(): Promise<Shop> {
  const project = await createProject(app, {
    currency: 'EUR',
    payment_provider: 'test',
    checkouts_per_ip_per_minute: 1_000_000,
    tax: { enabled: true, inclusive: false, rates: [{ country: 'DE', rate: 0.19 }] },
  });
  return { project, api: app.client(project.keys.secret_test.token) };
}

/** Stocked variants at these prices (one product each). */
async function variants(shop: Shop, prices: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const price of prices) {
    const product = await createProduct(shop.api, { variants: [{ title: 'One', price }] });
    await shop.api.PUT('/v1/inventory-levels', {
      body: {
        variant_id: product.variants[0].id,
        location_id: shop.project.project.default_location_id,
        available: 500,
      },
    });
    ids.push(product.variants[0].id);
  }
  return ids;
}

/** A draft in EUR for jane@example.com shipped to Berlin, with one unit of each variant. */
async function draftOf(shop: Shop, variantIds: string[], email = 'jane@example.com'): Promise<Draft> {
  const draft = await createDraftOrder(shop.api, { currency: 'EUR', customer_email: email, shipping_address: BERLIN });
  await addItems(
    shop.api,
    draft.id,
    variantIds.map((variant_id) => ({ variant_id, quantity: 1 })),
  );
  return draft;
}

const applyCode = (shop: Shop, id: string, code: string) =>
  shop.api.POST('/v1/draft-orders/{id}/discount-codes', { ...byId(id), body: { code } });

const createCode = (shop: Shop, body: Record<string, unknown>) =>
  shop.api.POST('/v1/discounts', { body: { title: 'Code', type: 'percentage', value: 10, ...body } as never });

describe('applyDraftOrderDiscountCode: the checkout maths on a draft, the manual discount last', () => {
  test('a promotion, then a code, then the manual discount: totals equal on draft, e-mail and order', async () => {
    const shop = await newShop();
    const [a, b] = await variants(shop, [1999, 995]);
    await shop.api.POST('/v1/promotions', {
      body: { title: '5 % off', type: 'percentage', value: 5, combinable: true, priority: 1 },
    });
    await createCode(shop, { code: 'TEN', value: 10, combinable: true });
    const draft = await draftOf(shop, [a, b]);
    await shop.api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { discount: 100 } });
    const applied = await applyCode(shop, draft.id, 'ten');
    expect(applied.response.status).toBe(200);
    const shown = applied.data!.data;
    // Promotion 5 %: 99.95 -> 100, 49.75 -> 50. Code 10 % of what is left: 189.9 -> 190, 94.5 -> 95. Tax 19 % of
    // 1709 = 324.71 -> 325 and of 850 = 161.5 -> 162. Manual 100 over 1709 / 850: 66.78 and 33.22 rounded down,
    // the leftover unit to the larger line.
    expect(shown).toMatchObject({
      subtotal: 2994,
      tax: 487,
      manual_discount: 100,
      discount: 150 + 285 + 100,
      total: 2994 - 435 + 487 - 100,
      discount_codes: ['TEN'],
    });
    expect(shown.discount_applications.map((x) => [x.source, x.amount, x.lines.map((l) => l.amount)])).toEqual([
      ['promotion', 150, [100, 50]],
      ['code', 285, [190, 95]],
      ['manual', 100, [67, 33]],
    ]);

    expect((await shop.api.POST('/v1/draft-orders/{id}/send', { ...byId(draft.id), body: {} })).response.status).toBe(
      200,
    );
    const outbox = (
      await app.platform.GET('/platform/v1/projects/{id}/outbox', {
        params: { path: { id: shop.project.project.id }, query: { to: 'jane@example.com' } },
      })
    ).data!.data;
    const mail = outbox.find((e) => (e.data as { draft_order_id: string }).draft_order_id === draft.id)!;
    expect(mail.text).toContain(`Discount: ${formatMoney(-shown.discount, 'EUR', 'en')}`);
    expect(mail.text).toContain(`Total: ${formatMoney(shown.total, 'EUR', 'en')}`);

    const completed = await shop.api.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
    expect(completed.response.status).toBe(201);
    const order = completed.data!.data;
    expect(order).toMatchObject({
      subtotal: shown.subtotal,
      tax: shown.tax,
      shipping_cost: shown.shipping_cost,
      discount: shown.discount,
      total: shown.total,
      discount_applications: shown.discount_applications,
    });
    expect(order.line_items.map((item) => item.discount)).toEqual([100 + 190 + 67, 50 + 95 + 33]);
    const codes = await shop.api.GET('/v1/discounts', { params: { query: { code: 'TEN' } } });
    expect(codes.data!.data[0].times_used).toBe(1);
    expect(await app.deps.db.discountRedemption.count({ where: { orderId: order.id } })).toBe(2);
  });

  test('a manual discount alone is what it was: taken off after tax, discount = manual_discount', async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [10000]);
    const draft = await draftOf(shop, [a]);
    const patched = await shop.api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { discount: 500 } });
    expect(patched.data!.data).toMatchObject({
      subtotal: 10000,
      tax: 1900,
      discount: 500,
      manual_discount: 500,
      total: 10000 + 1900 - 500,
      discount_codes: [],
    });
    expect(patched.data!.data.discount_applications).toEqual([
      {
        source: 'manual',
        id: null,
        code: null,
        title: 'Manual discount',
        type: 'manual',
        amount: 500,
        lines: [{ line_index: 0, amount: 500 }],
        shipping_amount: 0,
      },
    ]);
  });

  test('refusals: 422 invalid and not applicable (with reason), 409 used up, 400 on a completed draft; nothing changes', async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [2000]);
    await createCode(shop, { code: 'BIG', conditions: { min_subtotal: 5000 } });
    await createCode(shop, { code: 'GONE', usage_limit: 1 });
    const draft = await draftOf(shop, [a]);
    const unknown = await applyCode(shop, draft.id, 'NOPE');
    expect([unknown.response.status, unknown.error!.error.code]).toEqual([422, 'discount_invalid']);
    const small = await applyCode(shop, draft.id, 'big');
    expect(small.response.status).toBe(422);
    expect(small.error!.error).toMatchObject({
      code: 'discount_not_applicable',
      reason: 'min_subtotal',
      field: 'code',
    });
    // GONE used once by another draft's order.
    const other = await draftOf(shop, [a], 'other@example.com');
    expect((await applyCode(shop, other.id, 'GONE')).response.status).toBe(200);
    expect((await shop.api.POST('/v1/draft-orders/{id}/complete', byId(other.id))).response.status).toBe(201);
    const usedUp = await applyCode(shop, draft.id, 'GONE');
    expect([usedUp.response.status, usedUp.error!.error.code]).toEqual([409, 'usage_limit_reached']);
    const unchanged = await shop.api.GET('/v1/draft-orders/{id}', byId(draft.id));
    expect(unchanged.data!.data).toMatchObject({ discount: 0, discount_codes: [], total: 2380 });
    const done = await applyCode(shop, other.id, 'BIG');
    expect([done.response.status, done.error!.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('removeDraftOrderDiscountCode', () => {
  test('removes the code case-insensitively and recomputes; a code not applied is 404', async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [2000]);
    await createCode(shop, { code: 'Spring' });
    const draft = await draftOf(shop, [a]);
    expect((await applyCode(shop, draft.id, 'SPRING')).data!.data).toMatchObject({ discount: 200, total: 2142 });
    const path = { params: { path: { id: draft.id, code: 'spring' } } };
    const removed = await shop.api.DELETE('/v1/draft-orders/{id}/discount-codes/{code}', path);
    expect(removed.response.status).toBe(200);
    expect(removed.data!.data).toMatchObject({
      discount: 0,
      discount_codes: [],
      discount_applications: [],
      total: 2380,
    });
    const again = await shop.api.DELETE('/v1/draft-orders/{id}/discount-codes/{code}', path);
    expect(again.response.status).toBe(404);
  });
});

describe('completeDraftOrder: code uses counted when the draft completes', () => {
  test('20 concurrent completions of drafts with a code limited to 5: exactly 5 orders, 15 answer 409', async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [2500]);
    const created = await createCode(shop, { code: 'FIVE', usage_limit: 5 });
    const drafts = [];
    for (let i = 0; i < 20; i += 1) {
      const draft = await draftOf(shop, [a], `buyer${i}@example.com`);
      expect((await applyCode(shop, draft.id, 'five')).response.status).toBe(200);
      drafts.push(draft);
    }
    const answers = await Promise.all(
      drafts.map((draft) => shop.api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(15);
    expect(
      new Set(answers.filter((x) => x.error).map((x) => [x.error!.error.code, x.error!.error.field].join())),
    ).toEqual(new Set(['conflict,code']));
    const read = await shop.api.GET('/v1/discounts/{id}', byId(created.data!.data.id));
    expect(read.data!.data.times_used).toBe(5);
    const orders = await app.deps.db.order.findMany({ where: { projectId: shop.project.project.id } });
    expect(orders.map((order) => order.discount)).toEqual(Array(5).fill(250n));
    const open = await app.deps.db.draftOrder.count({ where: { projectId: shop.project.project.id, status: 'open' } });
    expect(open).toBe(15);
  }, 60_000);

  test('cancelling the order gives the use back; the draft of a deleted code cannot complete (409)', async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [2500]);
    const once = await createCode(shop, { code: 'ONCE', usage_limit: 1 });
    const first = await draftOf(shop, [a]);
    await applyCode(shop, first.id, 'ONCE');
    const order = (await shop.api.POST('/v1/draft-orders/{id}/complete', byId(first.id))).data!.data;
    await shop.api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'customer' } });
    expect((await shop.api.GET('/v1/discounts/{id}', byId(once.data!.data.id))).data!.data.times_used).toBe(0);

    const temporary = await createCode(shop, { code: 'TEMP' });
    const second = await draftOf(shop, [a]);
    await applyCode(shop, second.id, 'TEMP');
    expect((await shop.api.DELETE('/v1/discounts/{id}', byId(temporary.data!.data.id))).response.status).toBe(204);
    const refused = await shop.api.POST('/v1/draft-orders/{id}/complete', byId(second.id));
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error).toMatchObject({ code: 'conflict', field: 'code' });
    expect((await shop.api.GET('/v1/draft-orders/{id}', byId(second.id))).data!.data.status).toBe('open');
  });
});

describe('createCheckoutFromDraft and completeCheckout of a draft with a code', () => {
  test("the checkout shows the draft's reductions and charges its total; the use is counted once", async () => {
    const shop = await newShop();
    const [a] = await variants(shop, [2000]);
    const created = await createCode(shop, { code: 'PAYME', usage_limit: 1 });
    const draft = await draftOf(shop, [a]);
    const applied = (await applyCode(shop, draft.id, 'payme')).data!.data;
    await shop.api.POST('/v1/draft-orders/{id}/send', { ...byId(draft.id), body: {} });
    const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: shop.project.project.id } });
    const shopper = storefront(app, shop.project.keys.publishable_test.token);
    const opened = await shopper.POST('/v1/checkouts/from-draft', { body: { token: payToken(project, draft.id) } });
    expect(opened.response.status).toBe(201);
    expect(opened.data!.data).toMatchObject({
      discount: applied.discount,
      total: applied.total,
      discount_codes: ['PAYME'],
      discount_applications: applied.discount_applications,
    });
    expect(opened.data!.data.lines.map((line) => line.discount)).toEqual([200]);
    const completed = await shopper.POST('/v1/checkouts/{id}/complete', {
      ...withSecret(opened.data!.data.id, opened.data!.client_secret),
      body: { payment: { token: 'tok_test_success' } },
    });
    expect(completed.response.status).toBe(201);
    expect(completed.data!.data).toMatchObject({
      draft_order_id: draft.id,
      discount: applied.discount,
      total: applied.total,
      discount_applications: applied.discount_applications,
    });
    expect((await shop.api.GET('/v1/discounts/{id}', byId(created.data!.data.id))).data!.data.times_used).toBe(1);
    expect(await app.deps.db.discountRedemption.count({ where: { discountId: created.data!.data.id } })).toBe(1);
  });
});
