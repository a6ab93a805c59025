import { describe, expect, test } from '@jest/globals';
import { buildProduct, createProduct } from '../../factories/catalog.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore({ project: { currency: 'EUR' } });
const eventsFor = async (id: string) =>
  (await store.api.GET('/v1/events', { params: { query: { resource_id: id, order: 'asc' } } })).data!.data;

describe('createProduct', () => {
  test('creates the product with its variants; price and sale_price come from the variants', async () => {
    const product = await createProduct(store.api, {
      title: 'Trail Runner',
      product_type: 'Shoes',
      vendor: 'Northpeak',
      tags: ['running'],
      variants: [
        { title: 'EU 42', sku: 'TR-42', price: 12900, sale_price: 9900, weight: 640, low_stock_threshold: 3 },
        { title: 'EU 43', sku: 'TR-43', price: 11900 },
      ],
    });
    expect(product).toMatchObject({
      title: 'Trail Runner',
      handle: 'trail-runner',
      status: 'active',
      price: 11900,
      sale_price: 9900,
      currency: 'EUR',
      description: null,
      image: null,
      collection_ids: [],
      metadata: {},
    });
    expect(product.variants.map((v) => [v.title, v.position, v.inventory_quantity])).toEqual([
      ['EU 42', 0, 0],
      ['EU 43', 1, 0],
    ]);
    expect(product.variants[0]).toMatchObject({
      sku: 'TR-42',
      weight: 640,
      low_stock_threshold: 3,
      product_id: product.id,
    });
    expect((await eventsFor(product.id))[0]).toMatchObject({
      type: 'product.created',
      actor_id: store.keys.secret_test.id,
    });
  });

  test('handles are generated from the title and unique: acme, acme-2, acme-3; a deleted product frees its handle', async () => {
    const a = await createProduct(store.api, { title: 'Acme Anvil' });
    const b = await createProduct(store.api, { title: 'ACME anvil!' });
    const c = await createProduct(store.api, { title: 'Acme   Anvil' });
    expect([a.handle, b.handle, c.handle]).toEqual(['acme-anvil', 'acme-anvil-2', 'acme-anvil-3']);
    await store.api.DELETE('/v1/products/{id}', byId(a.id));
    expect((await createProduct(store.api, { title: 'Acme Anvil' })).handle).toBe('acme-anvil');
    expect((await createProduct(store.api, { title: 'Crème Brûlée & Straße' })).handle).toBe('creme-brulee-strasse');
    expect((await createProduct(store.api, { title: '!!!' })).handle).toMatch(/^product(-\d+)?$/);
  });

  test('concurrent products with one title all get distinct handles', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => store.api.POST('/v1/products', { body: buildProduct({ title: 'Race Car' }) })),
    );
    expect(results.every((r) => r.response.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.data!.data.handle)).size).toBe(12);
  });

  test('an explicit handle that is taken answers 409 conflict with field handle', async () => {
    await createProduct(store.api, { title: 'X', handle: 'mine' });
    const { error, response } = await store.api.POST('/v1/products', { body: buildProduct({ handle: 'mine' }) });
    expect(response.status).toBe(409);
    expect(error!.error).toMatchObject({ code: 'conflict', field: 'handle' });
  });

  test('SKUs are unique per project when set (409 with field sku); many variants may have none', async () => {
    await createProduct(store.api, { variants: [{ title: 'A', sku: 'UNIQUE-1', price: 100 }] });
    const clash = await store.api.POST('/v1/products', {
      body: buildProduct({ variants: [{ title: 'B', sku: 'UNIQUE-1', price: 100 }] }),
    });
    expect(clash.error!.error).toMatchObject({ code: 'conflict', field: 'sku' });
    await createProduct(store.api, {
      variants: [
        { title: 'A', price: 1 },
        { title: 'B', sku: null, price: 2 },
      ],
    });
    const other = await createProject(store.app);
    await createProduct(store.app.client(other.keys.secret_test.token), {
      variants: [{ title: 'A', sku: 'UNIQUE-1', price: 100 }],
    });
  });

  test('validation: title required, at least one variant, price not negative, handle format', async () => {
    const { error } = await store.api.POST('/v1/products', { body: {} as never });
    expect(error!.error.details!.map((d) => d.field).sort()).toEqual(['title', 'variants']);
    for (const [body, field] of [
      [{ variants: [] }, 'variants'],
      [{ variants: [{ title: 'x', price: -1 }] }, 'variants[0].price'],
      [{ handle: 'Not A Handle' }, 'handle'],
      [{ title: 'x'.repeat(256) }, 'title'],
      [{ status: 'deleted' }, 'status'],
      [{ image: 'not a url' }, 'image'],
    ] as const) {
      const result = await store.api.POST('/v1/products', { body: buildProduct(body as never) });
      expect(result.error!.error).toMatchObject({ code: 'invalid_request', field });
    }
  });
});

describe('getProduct / updateProduct / deleteProduct', () => {
  test('fields=title answers {id, title} only', async () => {
    const product = await createProduct(store.api);
    const { data } = await store.api.GET('/v1/products/{id}', {
      params: { path: { id: product.id }, query: { fields: ['title'] } },
    });
    expect(data!.data).toEqual({ id: product.id, title: product.title });
  });

  test('update changes the fields sent and records product.updated with the changes', async () => {
    const product = await createProduct(store.api, { title: 'Old Title', tags: ['a'] });
    const { data } = await store.api.PATCH('/v1/products/{id}', {
      ...byId(product.id),
      body: { title: 'New Title', tags: ['a', 'b'], vendor: 'Acme' },
    });
    expect(data!.data).toMatchObject({ title: 'New Title', handle: product.handle, tags: ['a', 'b'], vendor: 'Acme' });
    const updated = (await eventsFor(product.id)).find((e) => e.type === 'product.updated')!;
    expect(updated.metadata.changes).toEqual({
      title: { from: 'Old Title', to: 'New Title' },
      tags: { from: ['a'], to: ['a', 'b'] },
      vendor: { from: null, to: 'Acme' },
    });
  });

  test('changing the handle to a taken one answers 409', async () => {
    const a = await createProduct(store.api);
    const b = await createProduct(store.api);
    const { error } = await store.api.PATCH('/v1/products/{id}', { ...byId(b.id), body: { handle: a.handle } });
    expect(error!.error).toMatchObject({ code: 'conflict', field: 'handle' });
  });

  test('delete is soft: 404 afterwards, gone from lists, product.deleted recorded', async () => {
    const product = await createProduct(store.api, { vendor: 'GoneCo' });
    expect((await store.api.DELETE('/v1/products/{id}', byId(product.id))).response.status).toBe(204);
    expect((await store.api.GET('/v1/products/{id}', byId(product.id))).error).toEqual({
      error: { code: 'not_found', message: 'Product not found.' },
    });
    expect((await store.api.GET('/v1/products', { params: { query: { vendor: 'GoneCo' } } })).data!.data).toEqual([]);
    expect((await eventsFor(product.id)).map((e) => e.type)).toEqual(['product.created', 'product.deleted']);
    expect((await store.api.DELETE('/v1/products/{id}', byId(product.id))).response.status).toBe(404);
  });
});

describe('duplicateProduct', () => {
  test('copies as a draft with a new handle, variants without SKUs or stock, and records product.created', async () => {
    const original = await createProduct(store.api, {
      title: 'Original',
      variants: [
        { title: 'S', sku: 'ORIG-S', price: 500 },
        { title: 'M', sku: 'ORIG-M', price: 600 },
      ],
    });
    const { data, response } = await store.api.POST('/v1/products/{id}/duplicate', byId(original.id));
    expect(response.status).toBe(201);
    const copy = data!.data;
    expect(copy).toMatchObject({ title: 'Original', handle: 'original-2', status: 'draft', price: 500 });
    expect(copy.id).not.toBe(original.id);
    expect(copy.variants.map((v) => [v.title, v.sku, v.price, v.inventory_quantity])).toEqual([
      ['S', null, 500, 0],
      ['M', null, 600, 0],
    ]);
    expect((await eventsFor(copy.id))[0].type).toBe('product.created');
    const titled = await store.api.POST('/v1/products/{id}/duplicate', {
      ...byId(original.id),
      body: { title: 'Original Two' },
    });
    expect(titled.data!.data.handle).toBe('original-two');
  });
});

describe('variants', () => {
  test('adding, repricing and deleting variants keeps the product price and sale price', async () => {
    const product = await createProduct(store.api, { variants: [{ title: 'A', price: 5000 }] });
    const added = await store.api.POST('/v1/products/{id}/variants', {
      ...byId(product.id),
      body: { title: 'B', price: 4000, sale_price: 3500 },
    });
    expect(added.response.status).toBe(201);
    expect(added.data!.data.position).toBe(1);
    let read = (await store.api.GET('/v1/products/{id}', byId(product.id))).data!.data;
    expect([read.price, read.sale_price]).toEqual([4000, 3500]);

    await store.api.PATCH('/v1/variants/{id}', {
      params: { path: { id: added.data!.data.id } },
      body: { price: 6000, sale_price: null },
    });
    read = (await store.api.GET('/v1/products/{id}', byId(product.id))).data!.data;
    expect([read.price, read.sale_price]).toEqual([5000, null]);

    expect(
      (await store.api.DELETE('/v1/variants/{id}', { params: { path: { id: product.variants[0].id } } })).response
        .status,
    ).toBe(204);
    read = (await store.api.GET('/v1/products/{id}', byId(product.id))).data!.data;
    expect(read.price).toBe(6000);
    const changes = (await eventsFor(product.id))
      .filter((e) => e.type === 'product.updated')
      .map((e) => Object.keys(e.metadata.changes ?? {}).sort());
    expect(changes).toEqual([
      ['price', 'sale_price', 'variants'],
      ['price', 'sale_price', 'variants'],
      ['price', 'variants'],
    ]);
  });

  test("a product's last variant cannot be deleted (400)", async () => {
    const product = await createProduct(store.api);
    const { error, response } = await store.api.DELETE('/v1/variants/{id}', {
      params: { path: { id: product.variants[0].id } },
    });
    expect(response.status).toBe(400);
    expect(error!.error.code).toBe('invalid_request');
  });

  test('get; a SKU taken by another variant answers 409; unknown or foreign variants 404', async () => {
    const product = await createProduct(store.api, {
      variants: [
        { title: 'A', sku: 'VAR-A', price: 1 },
        { title: 'B', sku: 'VAR-B', price: 1 },
      ],
    });
    const b = product.variants[1];
    expect((await store.api.GET('/v1/variants/{id}', { params: { path: { id: b.id } } })).data!.data).toEqual(b);
    const clash = await store.api.PATCH('/v1/variants/{id}', {
      params: { path: { id: b.id } },
      body: { sku: 'VAR-A' },
    });
    expect(clash.error!.error).toMatchObject({ code: 'conflict', field: 'sku' });
    expect((await store.api.GET('/v1/variants/{id}', { params: { path: { id: 'var_nope' } } })).response.status).toBe(
      404,
    );
    const other = await createProject(store.app);
    expect(
      (
        await store.app
          .client(other.keys.secret_test.token)
          .GET('/v1/variants/{id}', { params: { path: { id: b.id } } })
      ).response.status,
    ).toBe(404);
  });
});

describe('listProducts', () => {
  test('filters by status, product_type, vendor, tag and created_after; sorts by title; walks pages', async () => {
    const shop = await createProject(store.app);
    const shopApi = store.app.client(shop.keys.secret_test.token);
    const made = [];
    for (const [title, status, product_type, vendor, tags] of [
      ['Banana', 'active', 'Fruit', 'Farm A', ['yellow']],
      ['apple', 'draft', 'Fruit', 'Farm B', ['red', 'sweet']],
      ['Carrot', 'active', 'Vegetable', 'Farm A', ['orange']],
      ['Date', 'archived', 'Fruit', 'Farm C', ['sweet']],
    ] as const) {
      made.push(await createProduct(shopApi, { title, status, product_type, vendor, tags: [...tags] }));
    }
    const titles = async (query: object) =>
      (await shopApi.GET('/v1/products', { params: { query } })).data!.data.map((p) => p.title);
    expect(await titles({ status: 'active', order: 'asc' })).toEqual(['Banana', 'Carrot']);
    expect(await titles({ product_type: 'Fruit', order: 'asc' })).toEqual(['Banana', 'apple', 'Date']);
    expect(await titles({ vendor: 'Farm A', order: 'asc' })).toEqual(['Banana', 'Carrot']);
    expect(await titles({ tag: 'sweet', order: 'asc' })).toEqual(['apple', 'Date']);
    expect(await titles({ created_after: made[1].created_at, order: 'asc' })).toEqual(['Carrot', 'Date']);
    expect(await titles({ sort: 'title', order: 'asc' })).toEqual(['Banana', 'Carrot', 'Date', 'apple']);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await shopApi.GET('/v1/products', { params: { query: { limit: 3, cursor } } });
      walked.push(...data!.data.map((p) => p.id));
      expect(data!.pagination.total).toBe(4);
      cursor = data!.pagination.cursor ?? undefined;
    } while (cursor);
    expect(walked).toEqual(made.map((p) => p.id).reverse());
  });
});
