import { describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { createCompany } from '../../factories/company.factory.js';
import {
  createOrderedPurchaseOrder,
  createPurchaseOrder,
  type PurchaseOrderResource,
} from '../../factories/purchase-order.factory.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const { api } = store;

const location = () => store.project.default_location_id;
const setStock = (variant_id: string, available: number) =>
  api.PUT('/v1/inventory-levels', { body: { variant_id, location_id: location(), available } });
const onHand = async (variantId: string) =>
  (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.find(
    (level) => level.location_id === location(),
  )?.on_hand ?? 0;
const receive = (id: string, lines: Array<[line_id: string, quantity: number]>) =>
  api.POST('/v1/purchase-orders/{id}/receive', {
    ...byId(id),
    body: { lines: lines.map(([line_id, quantity]) => ({ line_id, quantity })) },
  });
const eventsOf = async (id: string) =>
  (
    await api.GET('/v1/events', {
      params: { query: { resource_type: 'purchase_order', resource_id: id, order: 'asc' } },
    })
  ).data!.data.map((event) => event.type);

/** Every level of the project whose ledger (sum of adjustments) differs from it: empty when the ledger sums to the levels. */
async function ledgerMismatches(): Promise<unknown[]> {
  const db = store.app.deps.db;
  const levels = await db.inventoryLevel.findMany({ where: { projectId: store.project.id } });
  const sums = await db.inventoryAdjustment.groupBy({
    by: ['variantId', 'locationId'],
    where: { projectId: store.project.id },
    _sum: { delta: true },
  });
  const byKey = new Map(sums.map((sum) => [`${sum.variantId} ${sum.locationId}`, sum._sum.delta ?? 0]));
  return levels
    .filter((level) => (byKey.get(`${level.variantId} ${level.locationId}`) ?? 0) !== level.available)
    .map((level) => [level.variantId, level.locationId, level.available]);
}

async function stockedVariant(title: string, units: number): Promise<ProductResource['variants'][number]> {
  const product = await createProduct(api, { title, variants: [{ title: 'EU 42', sku: `${title}-42`, price: 9900 }] });
  if (units > 0) await setStock(product.variants[0].id, units);
  return product.variants[0];
}

describe('createPurchaseOrder', () => {
  test('a draft with its lines captured from the variants, currency of the project; records purchase_order.created', async () => {
    const variant = await stockedVariant('Trail Runner', 0);
    const supplier = await createCompany(api, { name: 'Acme Shoes', type: 'supplier' });
    const order = await createPurchaseOrder(api, location(), [[variant.id, 10]], {
      supplier_id: supplier.id,
      reference: 'ACME-1',
      expected_at: '2026-12-04',
    });
    expect(order).toEqual({
      id: expect.stringMatching(/^po_[0-9a-z]{26}$/),
      status: 'draft',
      supplier_id: supplier.id,
      location_id: location(),
      currency: store.project.currency,
      reference: 'ACME-1',
      note: null,
      expected_at: '2026-12-04',
      lines: [
        {
          id: expect.stringMatching(/^pol_[0-9a-z]{26}$/),
          variant_id: variant.id,
          product_id: variant.product_id,
          title: 'Trail Runner - EU 42',
          sku: 'Trail Runner-42',
          quantity: 10,
          received_quantity: 0,
          unit_cost: 500,
          total: 5000,
        },
      ],
      total_quantity: 10,
      received_quantity: 0,
      subtotal: 5000,
      ordered_at: null,
      received_at: null,
      cancelled_at: null,
      created_at: expect.any(String),
      updated_at: order.created_at,
    });
    expect(await eventsOf(order.id)).toEqual(['purchase_order.created']);
  });

  test('400 on the field of each bad reference, and nothing is written', async () => {
    const variant = await stockedVariant('Refused Runner', 0);
    const customerCompany = await createCompany(api, { name: 'Buyer Co', type: 'customer' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ location_id: 'loc_00000000000000000000000000' }, 'location_id'],
      [{ location_id: location(), supplier_id: customerCompany.id }, 'supplier_id'],
      [
        {
          location_id: location(),
          lines: [{ variant_id: 'var_00000000000000000000000000', quantity: 1, unit_cost: 1 }],
        },
        'lines[0].variant_id',
      ],
      [
        {
          location_id: location(),
          lines: [
            { variant_id: variant.id, quantity: 1, unit_cost: 1 },
            { variant_id: variant.id, quantity: 2, unit_cost: 1 },
          ],
        },
        'lines[1].variant_id',
      ],
      [{ location_id: location(), currency: 'XYZ' }, 'currency'],
    ];
    for (const [body, field] of cases) {
      const response = await store.call('POST', '/v1/purchase-orders', body);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field });
    }
    const { data } = await api.GET('/v1/purchase-orders', { params: { query: { supplier_id: customerCompany.id } } });
    expect(data!.data).toEqual([]);
  });
});

describe('line totals are exact', () => {
  // total (quantity x unit_cost) and subtotal are JSON numbers: exact up to 9,007,199,254,740,991.
  test('a subtotal up to 2^53 - 1 is answered exactly; past it, 400 on lines and nothing is written', async () => {
    const product = await createProduct(api, {
      title: 'Costly Part',
      variants: [
        { title: 'A', price: 100 },
        { title: 'B', price: 100 },
      ],
    });
    const [a, b] = product.variants.map((variant) => variant.id);
    const exact = await createPurchaseOrder(api, location(), [[a, 90_071]], {
      lines: [{ variant_id: a, quantity: 90_071, unit_cost: 99_999_999_999 }],
    });
    expect(exact.lines[0].total).toBe(9_007_099_999_909_929);
    expect(exact.subtotal).toBe(9_007_099_999_909_929);

    // 999,999 x 99,999,999,999 is 99,999,899,999,000,001: as a JSON number it would read ...000,000.
    for (const lines of [
      [{ variant_id: a, quantity: 999_999, unit_cost: 99_999_999_999 }],
      [
        { variant_id: a, quantity: 90_071, unit_cost: 99_999_999_999 },
        { variant_id: b, quantity: 1_000, unit_cost: 99_999_999_999 },
      ],
    ]) {
      const refused = await store.call('POST', '/v1/purchase-orders', { location_id: location(), lines });
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: 'invalid_request', field: 'lines' });
      const patched = await api.PATCH('/v1/purchase-orders/{id}', { ...byId(exact.id), body: { lines } });
      expect(patched.response.status).toBe(400);
    }
    expect((await api.GET('/v1/purchase-orders/{id}', byId(exact.id))).data!.data.subtotal).toBe(9_007_099_999_909_929);
  });
});

describe('updatePurchaseOrder', () => {
  test('a draft takes new lines (purchase_order.updated); once ordered its lines are fixed (400) but its note is not', async () => {
    const [a, b] = [await stockedVariant('Update A', 0), await stockedVariant('Update B', 0)];
    const order = await createPurchaseOrder(api, location(), [[a.id, 4]]);
    const updated = await api.PATCH('/v1/purchase-orders/{id}', {
      ...byId(order.id),
      body: { lines: [{ variant_id: b.id, quantity: 6, unit_cost: 700 }] },
    });
    expect(updated.data!.data.lines.map((line) => [line.variant_id, line.quantity, line.total])).toEqual([
      [b.id, 6, 4200],
    ]);
    const same = await api.PATCH('/v1/purchase-orders/{id}', {
      ...byId(order.id),
      body: { lines: [{ variant_id: b.id, quantity: 6, unit_cost: 700 }] },
    });
    expect(same.data!.data.updated_at).toBe(updated.data!.data.updated_at);
    await api.POST('/v1/purchase-orders/{id}/order', byId(order.id));
    const refused = await api.PATCH('/v1/purchase-orders/{id}', {
      ...byId(order.id),
      body: { lines: [{ variant_id: a.id, quantity: 1, unit_cost: 1 }] },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'lines' });
    const noted = await api.PATCH('/v1/purchase-orders/{id}', { ...byId(order.id), body: { note: 'Ring twice' } });
    expect(noted.data!.data).toMatchObject({ note: 'Ring twice', status: 'ordered' });
    expect(await eventsOf(order.id)).toEqual([
      'purchase_order.created',
      'purchase_order.updated',
      'purchase_order.updated',
      'purchase_order.updated',
    ]);
  });
});

describe('placePurchaseOrder', () => {
  test('a draft becomes ordered with ordered_at; an empty draft or an ordered order is refused with 400', async () => {
    const variant = await stockedVariant('Place Runner', 0);
    const empty = await createPurchaseOrder(api, location());
    const emptyAnswer = await api.POST('/v1/purchase-orders/{id}/order', byId(empty.id));
    expect(emptyAnswer.response.status).toBe(400);
    const order = await createPurchaseOrder(api, location(), [[variant.id, 2]]);
    const placed = await api.POST('/v1/purchase-orders/{id}/order', byId(order.id));
    expect(placed.data!.data).toMatchObject({ status: 'ordered', ordered_at: expect.any(String) });
    expect((await api.POST('/v1/purchase-orders/{id}/order', byId(order.id))).response.status).toBe(400);
  });
});

describe('receivePurchaseOrder', () => {
  test('received in two parts, on hand moves by exactly the received units and the ledger sums to the levels', async () => {
    const [a, b] = [await stockedVariant('Receive A', 3), await stockedVariant('Receive B', 0)];
    const order = await createOrderedPurchaseOrder(api, location(), [
      [a.id, 10],
      [b.id, 4],
    ]);
    const [lineA, lineB] = order.lines;

    const first = await receive(order.id, [[lineA.id, 6]]);
    expect(first.response.status).toBe(200);
    expect(first.data!.data).toMatchObject({ status: 'partially_received', received_quantity: 6, received_at: null });
    expect([await onHand(a.id), await onHand(b.id)]).toEqual([9, 0]);

    const second = await receive(order.id, [
      [lineA.id, 4],
      [lineB.id, 4],
    ]);
    expect(second.data!.data).toMatchObject({
      status: 'received',
      received_quantity: 14,
      received_at: expect.any(String),
    });
    expect(second.data!.data.lines.map((line) => line.received_quantity)).toEqual([10, 4]);
    expect([await onHand(a.id), await onHand(b.id)]).toEqual([13, 4]);

    const ledger = await store.app.deps.db.inventoryAdjustment.findMany({
      where: { variantId: { in: [a.id, b.id] }, reason: 'purchase_order' },
      orderBy: { createdAt: 'asc' },
    });
    expect(ledger.map((row) => [row.variantId, row.delta, row.availableAfter])).toEqual(
      expect.arrayContaining([
        [a.id, 6, 9],
        [a.id, 4, 13],
        [b.id, 4, 4],
      ]),
    );
    expect(ledger).toHaveLength(3);
    expect(await ledgerMismatches()).toEqual([]);
    expect(await eventsOf(order.id)).toEqual([
      'purchase_order.created',
      'purchase_order.updated',
      'purchase_order.received',
      'purchase_order.received',
    ]);
    expect((await receive(order.id, [[lineA.id, 1]])).response.status).toBe(400);
  });

  test('over-receipt is refused (400 on the line quantity) and nothing is received; a draft cannot be received', async () => {
    const variant = await stockedVariant('Over Runner', 0);
    const order = await createOrderedPurchaseOrder(api, location(), [[variant.id, 5]]);
    const over = await receive(order.id, [[order.lines[0].id, 6]]);
    expect(over.response.status).toBe(400);
    expect(over.error!.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].quantity' });
    expect(await onHand(variant.id)).toBe(0);
    const stored = await api.GET('/v1/purchase-orders/{id}', byId(order.id));
    expect(stored.data!.data).toMatchObject({ status: 'ordered', received_quantity: 0 });

    const draft = await createPurchaseOrder(api, location(), [[variant.id, 5]]);
    expect((await receive(draft.id, [[draft.lines[0].id, 1]])).response.status).toBe(400);
  });

  test('10 concurrent receipts of 3 units of a line of 10 receive exactly 9: three succeed, the rest are refused', async () => {
    const variant = await stockedVariant('Race Runner', 0);
    const order = await createOrderedPurchaseOrder(api, location(), [[variant.id, 10]]);
    const answers = await Promise.all(Array.from({ length: 10 }, () => receive(order.id, [[order.lines[0].id, 3]])));
    expect(answers.map((answer) => answer.response.status).sort()).toEqual([
      200, 200, 200, 400, 400, 400, 400, 400, 400, 400,
    ]);
    const stored: PurchaseOrderResource = (await api.GET('/v1/purchase-orders/{id}', byId(order.id))).data!.data;
    expect(stored).toMatchObject({ status: 'partially_received', received_quantity: 9 });
    expect(await onHand(variant.id)).toBe(9);
    expect(await ledgerMismatches()).toEqual([]);
  });
});

describe('cancelPurchaseOrder', () => {
  test('a partially received order is cancelled and keeps its received units; a cancelled one cannot be received or cancelled again', async () => {
    const variant = await stockedVariant('Cancel Runner', 0);
    const order = await createOrderedPurchaseOrder(api, location(), [[variant.id, 5]]);
    await receive(order.id, [[order.lines[0].id, 2]]);
    const cancelled = await api.POST('/v1/purchase-orders/{id}/cancel', byId(order.id));
    expect(cancelled.data!.data).toMatchObject({
      status: 'cancelled',
      cancelled_at: expect.any(String),
      received_quantity: 2,
    });
    expect(await onHand(variant.id)).toBe(2);
    expect((await receive(order.id, [[order.lines[0].id, 1]])).response.status).toBe(400);
    expect((await api.POST('/v1/purchase-orders/{id}/cancel', byId(order.id))).response.status).toBe(400);
    expect((await eventsOf(order.id)).at(-1)).toBe('purchase_order.cancelled');
  });
});

describe('listPurchaseOrders', () => {
  test('filters by status; an unknown id answers 404', async () => {
    const variant = await stockedVariant('List Runner', 0);
    const draft = await createPurchaseOrder(api, location(), [[variant.id, 1]]);
    const ordered = await createOrderedPurchaseOrder(api, location(), [[variant.id, 1]]);
    const drafts = (await api.GET('/v1/purchase-orders', { params: { query: { status: 'draft', limit: 100 } } })).data!;
    expect(drafts.data.map((order) => order.id)).toContain(draft.id);
    expect(drafts.data.map((order) => order.id)).not.toContain(ordered.id);
    expect(drafts.data.every((order) => order.status === 'draft')).toBe(true);
    expect((await api.GET('/v1/purchase-orders/{id}', byId('po_00000000000000000000000000'))).response.status).toBe(
      404,
    );
  });
});

describe('the PurchaseOrder schema', () => {
  test('received_at is a timestamp or null in the published contract, as ordered_at and cancelled_at are', async () => {
    const { data } = await store.app.client().GET('/openapi.json');
    const properties = (data as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } })
      .components.schemas.PurchaseOrder.properties;
    const timestampOrNull = [{ $ref: '#/components/schemas/Timestamp' }, { type: 'null' }];
    for (const field of ['ordered_at', 'received_at', 'cancelled_at']) {
      expect([field, properties[field]]).toEqual([field, expect.objectContaining({ oneOf: timestampOrNull })]);
    }
  });
});
