import { beforeAll, describe, expect, test } from '@jest/globals';
import { withMetafields } from '../../../src/modules/metafields/index.js';
import type { Database } from '../../../src/db/client.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createDefinition, createOwners, type Owners } from '../../factories/metafield.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { keyCtx } from '../../setup/ctx.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();
const TEST_MODE = { 'X-Test-Mode': 'true' } as const;
let owners: Owners;

beforeAll(async () => {
  owners = await createOwners(store.api);
  for (const owner_type of ['product', 'variant', 'collection', 'customer', 'order'] as const) {
    await createDefinition(store.api, { owner_type, slug: 'public_note', value_type: 'single_line_text' });
    await createDefinition(store.api, {
      owner_type,
      slug: 'internal_note',
      value_type: 'single_line_text',
      storefront_visible: false,
    });
  }
});

const note = (slug: string, value: string) => ({
  slug,
  label: expect.any(String),
  type: 'single_line_text',
  choices: null,
  value,
});

describe('modes: values are stored per mode, definitions are shared', () => {
  test('a value written with a test key is invisible to a live key, and the other way round', async () => {
    const product = (await createProduct(store.api)).id;
    const live = store.app.client(store.keys.secret_live.token);
    await store.api.PUT('/v1/products/{id}/metafields', { ...byId(product), body: { public_note: 'test value' } });
    expect((await live.GET('/v1/products/{id}/metafields', byId(product))).data!.data).toEqual({});
    await live.PUT('/v1/products/{id}/metafields', { ...byId(product), body: { public_note: 'live value' } });
    expect((await store.api.GET('/v1/products/{id}/metafields', byId(product))).data!.data).toEqual({
      public_note: note('public_note', 'test value'),
    });
    expect((await live.GET('/v1/products/{id}/metafields', byId(product))).data!.data).toEqual({
      public_note: note('public_note', 'live value'),
    });
    // Removing the live value leaves the test value.
    await live.DELETE('/v1/products/{id}/metafields/{slug}', {
      params: { path: { id: product, slug: 'public_note' } },
    });
    expect((await live.GET('/v1/products/{id}/metafields', byId(product))).data!.data).toEqual({});
    expect((await store.api.GET('/v1/products/{id}/metafields', byId(product))).data!.data.public_note.value).toBe(
      'test value',
    );
  });

  test('a live secret key with X-Test-Mode: true reads and writes test values; false means live', async () => {
    const product = (await createProduct(store.api)).id;
    const live = store.app.client(store.keys.secret_live.token);
    await live.PUT('/v1/products/{id}/metafields/{slug}', {
      params: { path: { id: product, slug: 'public_note' }, header: TEST_MODE },
      body: { value: 'via header' },
    });
    expect((await store.api.GET('/v1/products/{id}/metafields', byId(product))).data!.data.public_note.value).toBe(
      'via header',
    );
    expect((await live.GET('/v1/products/{id}/metafields', byId(product))).data!.data).toEqual({});
    const headerRead = await live.GET('/v1/products/{id}/metafields', {
      params: { path: { id: product }, header: TEST_MODE },
    });
    expect(headerRead.data!.data.public_note.value).toBe('via header');
    const explicitLive = await live.GET('/v1/products/{id}/metafields', {
      params: { path: { id: product }, header: { 'X-Test-Mode': 'false' } },
    });
    expect(explicitLive.data!.data).toEqual({});
    const expanded = await live.GET('/v1/products/{id}', {
      params: { path: { id: product }, query: { expand: ['metafields'] }, header: TEST_MODE },
    });
    expect(expanded.data!.data.metafields!.public_note.value).toBe('via header');
  });

  test('X-Test-Mode is ignored with publishable keys and test keys', async () => {
    const product = (await createProduct(store.api)).id;
    await store.api.PUT('/v1/products/{id}/metafields', { ...byId(product), body: { public_note: 'test only' } });
    const livePublishable = store.app.client(store.keys.publishable_live.token);
    const read = await livePublishable.GET('/v1/products/{id}/metafields', {
      params: { path: { id: product }, header: TEST_MODE },
    });
    expect(read.data!.data).toEqual({});
    const testKey = await store.api.GET('/v1/products/{id}/metafields', {
      params: { path: { id: product }, header: { 'X-Test-Mode': 'false' } },
    });
    expect(testKey.data!.data.public_note.value).toBe('test only');
  });

  test('X-Test-Mode other than true or false is 400 naming it', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/products/${owners.product}/metafields`, {
      headers: { Authorization: `Bearer ${store.keys.secret_live.token}`, 'X-Test-Mode': 'yes' },
    });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      error: { code: 'invalid_request', message: 'X-Test-Mode must be true or false.', field: 'X-Test-Mode' },
    });
  });
});

describe('publishable keys', () => {
  beforeAll(async () => {
    for (const [resource, id] of [
      ['products', owners.product],
      ['variants', owners.variant],
      ['collections', owners.collection],
    ] as const) {
      const response = await store.api.PUT(`/v1/${resource}/{id}/metafields`, {
        ...byId(id),
        body: { public_note: 'shown', internal_note: 'hidden' },
      });
      expect(response.response.status).toBe(200);
    }
  });

  test('read product, variant and collection values, storefront-visible definitions only', async () => {
    const publishable = store.app.client(store.keys.publishable_test.token);
    const expected = { public_note: note('public_note', 'shown') };
    expect((await publishable.GET('/v1/products/{id}/metafields', byId(owners.product))).data!.data).toEqual(expected);
    expect((await publishable.GET('/v1/variants/{id}/metafields', byId(owners.variant))).data!.data).toEqual(expected);
    expect((await publishable.GET('/v1/collections/{id}/metafields', byId(owners.collection))).data!.data).toEqual(
      expected,
    );
    // The secret key sees both.
    expect(
      Object.keys((await store.api.GET('/v1/products/{id}/metafields', byId(owners.product))).data!.data).sort(),
    ).toEqual(['internal_note', 'public_note']);
  });

  test('with expand=metafields on product, variant and collection reads and lists, storefront-visible ones only', async () => {
    const publishable = store.app.client(store.keys.publishable_test.token);
    const expand = { expand: ['metafields' as const] };
    const expected = { public_note: note('public_note', 'shown') };
    expect(
      (await publishable.GET('/v1/products/{id}', { params: { path: { id: owners.product }, query: expand } })).data!
        .data.metafields,
    ).toEqual(expected);
    expect(
      (await publishable.GET('/v1/variants/{id}', { params: { path: { id: owners.variant }, query: expand } })).data!
        .data.metafields,
    ).toEqual(expected);
    expect(
      (await publishable.GET('/v1/collections/{id}', { params: { path: { id: owners.collection }, query: expand } }))
        .data!.data.metafields,
    ).toEqual(expected);
    const products = (await publishable.GET('/v1/products', { params: { query: { ...expand, limit: 100 } } })).data!
      .data;
    expect(products.find((p) => p.id === owners.product)!.metafields).toEqual(expected);
    const collections = (await publishable.GET('/v1/collections', { params: { query: expand } })).data!.data;
    expect(collections.find((c) => c.id === owners.collection)!.metafields).toEqual(expected);
  });

  test('customer and order values answer 403 forbidden; so do writes', async () => {
    const publishable = store.app.client(store.keys.publishable_test.token);
    for (const response of [
      await publishable.GET('/v1/customers/{id}/metafields', byId(owners.customer)),
      await publishable.GET('/v1/orders/{id}/metafields', byId(owners.order)),
      await publishable.PUT('/v1/products/{id}/metafields', { ...byId(owners.product), body: { public_note: 'x' } }),
      await publishable.PUT('/v1/products/{id}/metafields/{slug}', {
        params: { path: { id: owners.product, slug: 'public_note' } },
        body: { value: 'x' },
      }),
      await publishable.DELETE('/v1/products/{id}/metafields/{slug}', {
        params: { path: { id: owners.product, slug: 'public_note' } },
      }),
    ]) {
      expect(response.response.status).toBe(403);
      expect(response.error!.error.code).toBe('forbidden');
    }
  });

  test('see active products only: a draft product and its variants are 404 to them, and left out of the list', async () => {
    const draft = await createProduct(store.api, { status: 'draft' });
    const publishable = store.app.client(store.keys.publishable_test.token);
    expect((await publishable.GET('/v1/products/{id}', byId(draft.id))).response.status).toBe(404);
    expect((await publishable.GET('/v1/variants/{id}', byId(draft.variants[0].id))).response.status).toBe(404);
    expect((await publishable.GET('/v1/products/{id}/metafields', byId(draft.id))).error).toEqual({
      error: { code: 'not_found', message: 'Product not found.' },
    });
    expect((await publishable.GET('/v1/variants/{id}/metafields', byId(draft.variants[0].id))).response.status).toBe(
      404,
    );
    const listed = (await publishable.GET('/v1/products', { params: { query: { limit: 100 } } })).data!.data.map(
      (p) => p.id,
    );
    expect(listed).toContain(owners.product);
    expect(listed).not.toContain(draft.id);
    expect((await publishable.GET('/v1/products', { params: { query: { status: 'draft' } } })).data!.data).toEqual([]);
    // Secret keys see it.
    expect((await store.api.GET('/v1/products/{id}', byId(draft.id))).response.status).toBe(200);
  });

  test('a live publishable key needs a verified domain', async () => {
    const { keys } = await createProject(store.app, { domain_verified: false });
    const { response, error } = await store.app
      .client(keys.publishable_live.token)
      .GET('/v1/products/{id}/metafields', byId(owners.product));
    expect(response.status).toBe(403);
    expect(error!.error.code).toBe('domain_not_verified');
  });
});

describe('without the custom_data extension', () => {
  test('reads answer {} (expand too), writes 400 naming the extension; definitions still work', async () => {
    const { keys } = await createProject(store.app, { extensions: ['locations'] });
    const api = store.app.client(keys.secret_test.token);
    const definition = await createDefinition(api, { slug: 'fabric' });
    const product = (await createProduct(api)).id;
    expect((await api.GET('/v1/products/{id}/metafields', byId(product))).data).toEqual({ data: {} });
    expect(
      (await api.GET('/v1/products/{id}', { params: { path: { id: product }, query: { expand: ['metafields'] } } }))
        .data!.data.metafields,
    ).toEqual({});
    const message = 'The custom_data extension is not enabled for this project. Enable it to write metafield values.';
    const batch = await api.PUT('/v1/products/{id}/metafields', { ...byId(product), body: { fabric: 'linen' } });
    expect(batch.response.status).toBe(400);
    expect(batch.error).toEqual({ error: { code: 'invalid_request', message } });
    const one = await api.PUT('/v1/products/{id}/metafields/{slug}', {
      params: { path: { id: product, slug: definition.slug } },
      body: { value: 'linen' },
    });
    expect(one.error).toEqual({ error: { code: 'invalid_request', message } });
    const removed = await api.DELETE('/v1/products/{id}/metafields/{slug}', {
      params: { path: { id: product, slug: definition.slug } },
    });
    expect(removed.error).toEqual({ error: { code: 'invalid_request', message } });
    // An unknown owner is still 404.
    expect((await api.GET('/v1/products/{id}/metafields', byId(owners.product))).response.status).toBe(404);
  });
});

describe('expand=metafields', () => {
  beforeAll(async () => {
    const body = { public_note: 'expanded' };
    await store.api.PUT('/v1/customers/{id}/metafields', { ...byId(owners.customer), body });
    await store.api.PUT('/v1/orders/{id}/metafields', { ...byId(owners.order), body });
    await store.api.PUT('/v1/products/{id}/metafields', { ...byId(owners.product), body });
  });
  const expand = { expand: ['metafields' as const] };
  const expected = { public_note: note('public_note', 'expanded'), internal_note: note('internal_note', 'hidden') };

  test('on customer and order reads and lists, with the secret key', async () => {
    expect(
      (
        await store.api.GET('/v1/customers/{id}', {
          params: { path: { id: owners.customer }, query: { expand: ['metafields', 'addresses'] } },
        })
      ).data!.data,
    ).toMatchObject({ metafields: { public_note: note('public_note', 'expanded') }, addresses: [] });
    expect(
      (await store.api.GET('/v1/orders/{id}', { params: { path: { id: owners.order }, query: expand } })).data!.data
        .metafields,
    ).toEqual({ public_note: note('public_note', 'expanded') });
    const customers = (await store.api.GET('/v1/customers', { params: { query: expand } })).data!.data;
    expect(customers.find((c) => c.id === owners.customer)!.metafields).toEqual({
      public_note: note('public_note', 'expanded'),
    });
    const orders = (await store.api.GET('/v1/orders', { params: { query: expand } })).data!.data;
    expect(orders.find((o) => o.id === owners.order)!.metafields).toEqual({
      public_note: note('public_note', 'expanded'),
    });
    // A customer search (relevance order) takes expand too.
    const searched = await store.api.GET('/v1/customers', {
      params: { query: { ...expand, search: 'Olga', sort: 'relevance' } },
    });
    expect(searched.data!.data.map((c) => c.metafields)).toEqual([{ public_note: note('public_note', 'expanded') }]);
  });

  test('resources without values get {}; without expand there is no metafields field; fields must name it to keep it', async () => {
    const bare = await createProduct(store.api);
    expect(
      (await store.api.GET('/v1/products/{id}', { params: { path: { id: bare.id }, query: expand } })).data!.data
        .metafields,
    ).toEqual({});
    expect((await store.api.GET('/v1/products/{id}', byId(owners.product))).data!.data).not.toHaveProperty(
      'metafields',
    );
    const narrowed = await store.api.GET('/v1/products/{id}', {
      params: { path: { id: owners.product }, query: { ...expand, fields: ['title', 'metafields'] } },
    });
    expect(narrowed.data!.data).toEqual({ id: owners.product, title: 'Owner product', metafields: expected });
    const without = await store.api.GET('/v1/products/{id}', {
      params: { path: { id: owners.product }, query: { ...expand, fields: ['title'] } },
    });
    expect(without.data!.data).toEqual({ id: owners.product, title: 'Owner product' });
  });

  test('an unknown expand value is 400 naming expand', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/orders/${owners.order}?expand=items`, {
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'expand' });
  });

  test('a page of 100 products loads its values in one query, each product its own', async () => {
    const { project, keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    await createDefinition(api, { slug: 'position_label', value_type: 'integer' });
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(Array.from({ length: 10 }, () => createProduct(api)));
      ids.push(...created.map((p) => p.id));
    }
    await Promise.all(
      ids.map((id, i) => api.PUT('/v1/products/{id}/metafields', { ...byId(id), body: { position_label: i } })),
    );

    const page = (await api.GET('/v1/products', { params: { query: { limit: 100, expand: ['metafields'] } } })).data!
      .data;
    expect(page).toHaveLength(100);
    for (const product of page) expect(product.metafields!.position_label.value).toBe(ids.indexOf(product.id));

    const ctx = await keyCtx(store.app, project.id, keys.secret_test.id);
    const counted = countingDatabase(ctx.db);
    const resources = page.map((product) => ({ ...product, metafields: undefined }));
    const expanded = await withMetafields({ ...ctx, db: counted.db }, 'product', { expand: ['metafields'] }, resources);
    expect(counted.calls()).toBe(1);
    expect(expanded.map((p) => p.metafields)).toEqual(page.map((p) => p.metafields));
  });
});

/** The database with every call counted: client methods ($queryRaw, ...) and model methods (db.product.findMany, ...). */
function countingDatabase(db: Database): { db: Database; calls: () => number } {
  let calls = 0;
  const counting = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property);
        if (typeof value === 'function') {
          return (...args: unknown[]) => {
            calls += 1;
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        }
        return value !== null && typeof value === 'object' && typeof property === 'string' && !property.startsWith('$')
          ? counting(value)
          : value;
      },
    });
  return { db: counting(db), calls: () => calls };
}
