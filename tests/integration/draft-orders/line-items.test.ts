import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder, readDraft } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const { app, api } = store;
let shoe: ProductResource;
beforeAll(async () => {
  shoe = await createProduct(api, {
    title: 'Trail Runner 2',
    variants: [
      { title: 'EU 42 / Black', sku: 'TR2-42-BLK', price: 11900, sale_price: 9900 },
      { title: 'EU 43 / Black', sku: null, price: 12900 },
    ],
  });
});

const path = (id: string, item_id?: string) =>
  ({ params: { path: item_id ? { id, item_id } : { id } } }) as { params: { path: { id: string; item_id: string } } };
const eventsFor = async (resourceId: string) =>
  (await api.GET('/v1/events', { params: { query: { resource_id: resourceId, order: 'asc' } } })).data!.data;
const newDraft = () => createDraftOrder(api, { currency: shoe.currency });

describe('addDraftOrderItems', () => {
  test('the answer carries the draft with its new totals, as GET answers it without expand', async () => {
    const draft = await newDraft();
    const { data, response } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path(draft.id),
      body: {
        items: [
          { variant_id: shoe.variants[0].id, quantity: 2 },
          { title: 'Gift wrapping', unit_price: 400, quantity: 1 },
        ],
      },
    });
    expect(response.status).toBe(201);
    expect(data!.data).toHaveLength(2);
    expect(data!.draft_order).toMatchObject({ id: draft.id, item_count: 2, subtotal: 19800 + 400, total: 19800 + 400 });
    const { items: _items, ...read } = await readDraft(api, draft.id);
    expect(data!.draft_order).toEqual(read);
  });

  test('a variant item captures product id, product title, variant title, SKU and the sale price (else the price); a custom item has no product', async () => {
    const draft = await newDraft();
    const [sale, regular, custom] = await addItems(api, draft.id, [
      { variant_id: shoe.variants[0].id, quantity: 2 },
      { variant_id: shoe.variants[1].id, quantity: 1, note: 'Gift' },
      { title: 'Gift wrapping', unit_price: 400, quantity: 3 },
    ]);
    expect(sale).toMatchObject({
      draft_order_id: draft.id,
      product_id: shoe.id,
      variant_id: shoe.variants[0].id,
      title: 'Trail Runner 2',
      variant_title: 'EU 42 / Black',
      sku: 'TR2-42-BLK',
      quantity: 2,
      unit_price: 9900,
      total: 19800,
      is_custom: false,
      note: null,
    });
    expect(sale.id).toMatch(/^doli_[0-9a-z]{26}$/);
    expect(regular).toMatchObject({ unit_price: 12900, sku: null, note: 'Gift', total: 12900 });
    expect(custom).toMatchObject({
      product_id: null,
      variant_id: null,
      title: 'Gift wrapping',
      variant_title: '',
      sku: null,
      unit_price: 400,
      total: 1200,
      is_custom: true,
    });
    const read = await readDraft(api, draft.id);
    expect(read).toMatchObject({ item_count: 3, subtotal: 19800 + 12900 + 1200, total: 19800 + 12900 + 1200 });
  });

  test('captured values do not follow later catalog changes', async () => {
    const product = await createProduct(api, {
      title: 'Mug',
      variants: [{ title: 'White', sku: 'MUG-W', price: 1500 }],
    });
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ variant_id: product.variants[0].id, quantity: 1 }]);
    await api.PATCH('/v1/variants/{id}', {
      params: { path: { id: product.variants[0].id } },
      body: { price: 9999, title: 'Black', sku: 'MUG-B' },
    });
    await api.PATCH('/v1/products/{id}', { params: { path: { id: product.id } }, body: { title: 'Big Mug' } });
    const [after] = (await readDraft(api, draft.id)).items!;
    expect(after).toEqual(item);
  });

  test('all or nothing: one unknown variant among valid items is 400 with its field path and nothing is added', async () => {
    const draft = await newDraft();
    const { error, response } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path(draft.id),
      body: {
        items: [
          { variant_id: shoe.variants[0].id, quantity: 1 },
          { title: 'Fee', unit_price: 100, quantity: 1 },
          { variant_id: 'var_unknown', quantity: 1 },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'items[2].variant_id' });
    expect((await readDraft(api, draft.id)).items).toEqual([]);
    expect((await eventsFor(draft.id)).map((e) => e.type)).toEqual(['draft_order.created']);
  });

  test("a deleted product's variant and another project's variant are 400 on the item's variant_id", async () => {
    const gone = await createProduct(api, { title: 'Discontinued' });
    await api.DELETE('/v1/products/{id}', { params: { path: { id: gone.id } } });
    const other = await createProject(app);
    const theirs = await createProduct(app.client(other.keys.secret_test.token));
    const draft = await newDraft();
    for (const variant_id of [gone.variants[0].id, theirs.variants[0].id]) {
      const { error } = await api.POST('/v1/draft-orders/{id}/items', {
        ...path(draft.id),
        body: { items: [{ variant_id, quantity: 1 }] },
      });
      expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'items[0].variant_id' });
    }
  });

  test('several bad items answer validation_error listing each field path', async () => {
    const draft = await newDraft();
    const { error } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path(draft.id),
      body: {
        items: [
          { quantity: 1 },
          { variant_id: shoe.variants[0].id, unit_price: 1, quantity: 1 },
          { title: 'Ok', unit_price: 1, quantity: 1 },
        ],
      },
    });
    expect(error!.error.code).toBe('validation_error');
    expect(error!.error.details!.map((d) => d.field)).toEqual([
      'items[0].title',
      'items[0].unit_price',
      'items[1].unit_price',
    ]);
  });

  test('a variant priced in another currency than the draft is 400 on its variant_id', async () => {
    const draft = await createDraftOrder(api, { currency: shoe.currency === 'EUR' ? 'USD' : 'EUR' });
    const { error } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path(draft.id),
      body: { items: [{ variant_id: shoe.variants[0].id, quantity: 1 }] },
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'items[0].variant_id' });
    expect(error!.error.message).toContain('priced in');
  });

  test.each([
    ['items', { items: [] }],
    ['items', { items: Array.from({ length: 101 }, () => ({ title: 'x', unit_price: 1, quantity: 1 })) }],
    ['items[0].quantity', { items: [{ title: 'x', unit_price: 1, quantity: 0 }] }],
    ['items[0].quantity', { items: [{ title: 'x', unit_price: 1, quantity: 1000 }] }],
    ['items[0].quantity', { items: [{ title: 'x', unit_price: 1 }] }],
    ['items[0].note', { items: [{ title: 'x', unit_price: 1, quantity: 1, note: 'n'.repeat(1001) }] }],
    ['items[0].unit_price', { items: [{ title: 'x', unit_price: -1, quantity: 1 }] }],
    ['items[0].sku', { items: [{ title: 'x', unit_price: 1, quantity: 1, sku: 'X' }] }],
  ])('an invalid %s answers 400 naming it', async (field, body) => {
    const draft = await newDraft();
    const { error, response } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path(draft.id),
      body: body as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('accepts the limits exactly: 100 items, quantity 999, a note of 1000 characters', async () => {
    const draft = await newDraft();
    const items = await addItems(
      api,
      draft.id,
      Array.from({ length: 100 }, (_, i) => ({
        title: `Part ${i}`,
        unit_price: 1,
        quantity: i === 0 ? 999 : 1,
        note: i === 1 ? 'n'.repeat(1000) : undefined,
      })),
    );
    expect(items).toHaveLength(100);
    expect((await readDraft(api, draft.id)).item_count).toBe(100);
  });

  test('records draft_order.updated with the new totals and each added item', async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ title: 'Setup', unit_price: 2500, quantity: 2 }]);
    const [, event] = await eventsFor(draft.id);
    expect(event.type).toBe('draft_order.updated');
    expect(event.summary).toContain('1 line item added');
    expect(event.metadata.changes).toMatchObject({
      subtotal: { from: 0, to: 5000 },
      total: { from: 0, to: 5000 },
      item_count: { from: 0, to: 1 },
      [`items.${item.id}`]: { from: null, to: item },
    });
  });

  test('an unknown draft is 404', async () => {
    const { error } = await api.POST('/v1/draft-orders/{id}/items', {
      ...path('dord_nope'),
      body: { items: [{ title: 'x', unit_price: 1, quantity: 1 }] },
    });
    expect(error).toEqual({ error: { code: 'not_found', message: 'Draft order not found.' } });
  });
});

describe('updateDraftOrderItem', () => {
  test('quantity and note of any item; totals follow in the same answer and draft', async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ variant_id: shoe.variants[0].id, quantity: 1 }]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { quantity: 3, note: 'Ship together' },
    });
    expect(data!.data).toMatchObject({ quantity: 3, note: 'Ship together', total: 29700, unit_price: 9900 });
    expect(data!.draft_order).toMatchObject({ id: draft.id, item_count: 1, subtotal: 29700, total: 29700 });
    const { items: _items, ...read } = await readDraft(api, draft.id);
    expect(data!.draft_order).toEqual(read); // the draft as GET answers it, no second request needed
    const cleared = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { note: null },
    });
    expect(cleared.data!.data.note).toBeNull();
  });

  test('unit_price or title of a variant item is 400 (case mapping 4) and nothing changes', async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ variant_id: shoe.variants[0].id, quantity: 1 }]);
    const price = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { unit_price: 1, quantity: 5 },
    });
    expect(price.response.status).toBe(400);
    expect(price.error!.error).toMatchObject({ code: 'invalid_request', field: 'unit_price' });
    const title = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { title: 'Cheaper shoe' },
    });
    expect(title.error!.error).toMatchObject({ code: 'invalid_request', field: 'title' });
    const both = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { title: 'x', unit_price: 1 },
    });
    expect(both.error!.error.code).toBe('validation_error');
    expect((await readDraft(api, draft.id)).items![0]).toEqual(item);
  });

  test('unit_price and title of a custom item change, with the totals', async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ title: 'Setup', unit_price: 1000, quantity: 2 }]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { title: 'Setup fee', unit_price: 1250 },
    });
    expect(data!.data).toMatchObject({ title: 'Setup fee', unit_price: 1250, total: 2500 });
    expect((await readDraft(api, draft.id)).total).toBe(2500);
    const events = await eventsFor(draft.id);
    expect(events.at(-1)!.metadata.changes![`items.${item.id}`].to).toMatchObject({
      title: 'Setup fee',
      unit_price: 1250,
    });
  });

  test('a change that would make the total negative is 400; an item of another draft is 404', async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ title: 'Setup', unit_price: 1000, quantity: 2 }]);
    await api.PATCH('/v1/draft-orders/{id}', { ...path(draft.id), body: { discount: 1500 } });
    const refused = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { quantity: 1 },
    });
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'quantity' });
    const other = await newDraft();
    const missing = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(other.id, item.id),
      body: { quantity: 1 },
    });
    expect(missing.error).toEqual({ error: { code: 'not_found', message: 'Line item not found.' } });
  });

  test("a custom item's unit_price that would make the total negative is 400 naming unit_price, and nothing changes", async () => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ title: 'Setup', unit_price: 1000, quantity: 2 }]);
    await api.PATCH('/v1/draft-orders/{id}', { ...path(draft.id), body: { discount: 1500 } });
    const refused = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: { unit_price: 500 },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'unit_price' });
    expect(await readDraft(api, draft.id)).toMatchObject({ subtotal: 2000, total: 500, items: [item] });
  });

  test.each([
    ['quantity', { quantity: 0 }],
    ['quantity', { quantity: 1000 }],
    ['note', { note: 'n'.repeat(1001) }],
    ['body', {}],
  ])('an invalid %s answers 400', async (field, body) => {
    const draft = await newDraft();
    const [item] = await addItems(api, draft.id, [{ title: 'Setup', unit_price: 1000, quantity: 1 }]);
    const { error } = await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      ...path(draft.id, item.id),
      body: body as never,
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });
});

describe('deleteDraftOrderItem', () => {
  test('removes the item and recalculates the totals (204); the item is then 404', async () => {
    const draft = await newDraft();
    const [a, b] = await addItems(api, draft.id, [
      { title: 'A', unit_price: 100, quantity: 1 },
      { title: 'B', unit_price: 250, quantity: 2 },
    ]);
    expect((await api.DELETE('/v1/draft-orders/{id}/items/{item_id}', path(draft.id, a.id))).response.status).toBe(204);
    expect(await readDraft(api, draft.id)).toMatchObject({ item_count: 1, subtotal: 500, total: 500, items: [b] });
    expect((await api.DELETE('/v1/draft-orders/{id}/items/{item_id}', path(draft.id, a.id))).response.status).toBe(404);
    const last = (await eventsFor(draft.id)).at(-1)!;
    expect(last.metadata.changes![`items.${a.id}`]).toEqual({ from: a, to: null });
  });
});

describe('a completed draft', () => {
  test('cannot change: PATCH, items add/update/delete and send answer 400', async () => {
    const product = await createProduct(api, {
      variants: [{ title: 'Default', price: 700, inventory_policy: 'continue' }],
    });
    const draft = await createDraftOrder(api, { currency: product.currency });
    const [item] = await addItems(api, draft.id, [{ variant_id: product.variants[0].id, quantity: 1 }]);
    await api.POST('/v1/draft-orders/{id}/complete', path(draft.id));
    const answers = await Promise.all([
      api.PATCH('/v1/draft-orders/{id}', { ...path(draft.id), body: { notes: 'late' } }),
      api.POST('/v1/draft-orders/{id}/items', {
        ...path(draft.id),
        body: { items: [{ title: 'x', unit_price: 1, quantity: 1 }] },
      }),
      api.PATCH('/v1/draft-orders/{id}/items/{item_id}', { ...path(draft.id, item.id), body: { quantity: 2 } }),
      api.DELETE('/v1/draft-orders/{id}/items/{item_id}', path(draft.id, item.id)),
      api.POST('/v1/draft-orders/{id}/send', path(draft.id)),
    ]);
    expect(answers.map((a) => a.response.status)).toEqual([400, 400, 400, 400, 400]);
    expect(answers.map((a) => a.error!.error.code)).toEqual(Array(5).fill('invalid_request'));
  });
});
