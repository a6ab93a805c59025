import { beforeAll, describe, expect, test } from '@jest/globals';
import { purgeDeletedCustomers } from '../../../src/modules/customers/customers.service.js';
import { VALUE_TYPES, type ValueType } from '../../../src/modules/metafields/value-types.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createDefinition, createFile, createOwners, type Owners } from '../../factories/metafield.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();

const slugOf = (type: string) => type.replace('.', '_');
const UNKNOWN = (prefix: string) => `${prefix}01jd5zzzzzzzzzzzzzzzzzzzzz`;
const onePath = (id: string, slug: string) => ({ params: { path: { id, slug } } });
const read = async (id: string) => (await store.api.GET('/v1/products/{id}/metafields', byId(id))).data!.data;
const putAll = (id: string, body: Record<string, unknown>) =>
  store.api.PUT('/v1/products/{id}/metafields', { ...byId(id), body });
const putOne = (id: string, slug: string, value: unknown) =>
  store.api.PUT('/v1/products/{id}/metafields/{slug}', { ...onePath(id, slug), body: { value } });

let owners: Owners;
let files: { image: string; pdf: string; video: string };
let owner: string;

beforeAll(async () => {
  owners = await createOwners(store.api);
  files = {
    image: await createFile(store.api, 'image/png'),
    pdf: await createFile(store.api, 'application/pdf'),
    video: await createFile(store.api, 'video/mp4'),
  };
  owner = (await createProduct(store.api)).id;
  // One product definition per value type, its slug the type's name (list.integer: list_integer).
  for (const type of VALUE_TYPES)
    await createDefinition(store.api, { label: type, slug: slugOf(type), value_type: type });
});

// A valid and an invalid value of each base type (openapi.yaml, the value schemas of `MetafieldValueObject`).
const base = (): Record<string, [valid: unknown, invalid: unknown, problem: string]> => ({
  single_line_text: ['Machine wash cold', 'two\nlines', 'must be a single line (no line breaks)'],
  multi_line_text: ['Machine wash cold.\nDo not tumble dry.', 'x'.repeat(5001), 'must be at most 5000 characters long'],
  email: ['care@example.com', 'care-at-example.com', 'must be a valid email address'],
  integer: [42, 4.2, 'must be a whole number'],
  decimal: [19.95, 19.955, 'must be a number with at most 2 decimal places'],
  rating: [5, 6, 'must be a whole number from 1 to 5'],
  measurement: [
    { value: 1.2, unit: 'kg' },
    { value: 1.2, unit: 'stone' },
    'unit must be one of kg, g, lb, oz, m, cm, mm, in, ft, L, mL, fl_oz, gal',
  ],
  date: ['2026-12-01', '2026-02-30', 'must be a date in the form YYYY-MM-DD'],
  datetime: [
    '2026-12-01T09:30:00+01:00',
    '2026-12-01 09:30',
    'must be an ISO 8601 date-time with seconds and a time zone, e.g. 2026-11-21T09:30:00Z',
  ],
  url: ['https://example.com/care', 'ftp://example.com/care', 'must be a valid http or https URL'],
  boolean: [true, 'yes', 'must be true or false'],
  color: ['#1a2b3c', 'red', 'must be a 6-digit hex color with a # prefix, e.g. #1a2b3c'],
  image_reference: [files.image, files.pdf, 'must be an image ID (img_...)'],
  file_reference: [files.pdf, files.image, 'must be a file ID (file_...)'],
  video_reference: [files.video, files.pdf, `names no registered video file of this project (${files.pdf})`],
  product_reference: [owners.product, UNKNOWN('prod_'), `names no product of this project (${UNKNOWN('prod_')})`],
  variant_reference: [owners.variant, UNKNOWN('var_'), `names no variant of this project (${UNKNOWN('var_')})`],
  collection_reference: [
    owners.collection,
    UNKNOWN('col_'),
    `names no collection of this project (${UNKNOWN('col_')})`,
  ],
  customer_reference: [owners.customer, UNKNOWN('cus_'), `names no customer of this project (${UNKNOWN('cus_')})`],
  order_reference: [owners.order, UNKNOWN('ord_'), `names no order of this project (${UNKNOWN('ord_')})`],
});

/** A valid value of the type, an invalid one, and the message of the invalid one. */
function sample(type: ValueType): [unknown, unknown, string] {
  const slug = slugOf(type);
  if (!type.startsWith('list.')) {
    const [valid, invalid, problem] = base()[type];
    return [valid, invalid, `${slug} ${problem}.`];
  }
  const [valid, invalid, problem] = base()[type.slice(5)];
  return [[valid, valid], [valid, invalid], `${slug}[1] ${problem}.`];
}

describe('setProductMetafield: every value type', () => {
  test.each(VALUE_TYPES)('%s: a valid value is stored and read back as a value object', async (type) => {
    const [valid] = sample(type);
    const { data, response } = await putOne(owner, slugOf(type), valid);
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({ slug: slugOf(type), label: type, type, choices: null, value: valid });
    expect((await read(owner))[slugOf(type)]).toEqual(data!.data);
  });

  test.each(VALUE_TYPES)(
    '%s: an invalid value is 400 invalid_request with field = the slug, and nothing changes',
    async (type) => {
      const [, invalid, message] = sample(type);
      const before = (await read(owner))[slugOf(type)];
      const { error, response } = await putOne(owner, slugOf(type), invalid);
      expect(response.status).toBe(400);
      expect(error!.error).toEqual({ code: 'invalid_request', field: slugOf(type), message });
      expect((await read(owner))[slugOf(type)]).toEqual(before);
    },
  );
});

describe('list values', () => {
  test('hold at most 50 items, each validated', async () => {
    expect(
      (
        await putOne(
          owner,
          'list_integer',
          Array.from({ length: 50 }, (_, i) => i),
        )
      ).response.status,
    ).toBe(200);
    const tooMany = await putOne(
      owner,
      'list_integer',
      Array.from({ length: 51 }, (_, i) => i),
    );
    expect(tooMany.error!.error).toEqual({
      code: 'invalid_request',
      field: 'list_integer',
      message: 'list_integer must have at most 50 items.',
    });
    const single = await putOne(owner, 'list_color', '#ffffff');
    expect(single.error!.error.message).toBe('list_color must be a list (JSON array) of at most 50 items.');
    const item = await putOne(owner, 'list_date', ['2026-01-01', '2026-01-02', 'tomorrow']);
    expect(item.error!.error.message).toBe('list_date[2] must be a date in the form YYYY-MM-DD.');
  });
});

describe('choices', () => {
  test('single_line_text, integer and their list forms take only their choices', async () => {
    const text = await createDefinition(store.api, {
      slug: 'finish',
      value_type: 'single_line_text',
      choices: ['matte', 'gloss'],
    });
    const number = await createDefinition(store.api, {
      slug: 'pack_size',
      value_type: 'integer',
      choices: ['6', '12'],
    });
    const texts = await createDefinition(store.api, {
      slug: 'materials',
      value_type: 'list.single_line_text',
      choices: ['cotton', 'linen', 'wool'],
    });
    const numbers = await createDefinition(store.api, {
      slug: 'sizes',
      value_type: 'list.integer',
      choices: ['40', '41', '42'],
    });
    const ok = await putAll(owner, {
      [text.slug]: 'gloss',
      [number.slug]: 12,
      [texts.slug]: ['wool', 'cotton'],
      [numbers.slug]: [42],
    });
    expect(ok.response.status).toBe(200);
    expect(ok.data!.data.materials).toEqual({
      slug: 'materials',
      label: texts.label,
      type: 'list.single_line_text',
      choices: ['cotton', 'linen', 'wool'],
      value: ['wool', 'cotton'],
    });

    const bad = await putAll(owner, { finish: 'satin', pack_size: 7, materials: ['cotton', 'silk'], sizes: [43] });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error.details).toEqual([
      { field: 'finish', message: 'finish must be one of the choices: matte, gloss.' },
      { field: 'pack_size', message: 'pack_size must be one of the choices: 6, 12.' },
      { field: 'materials', message: 'materials[1] must be one of the choices: cotton, linen, wool.' },
      { field: 'sizes', message: 'sizes[0] must be one of the choices: 40, 41, 42.' },
    ]);
  });
});

describe('references', () => {
  test('a resource of another project is refused like one that does not exist', async () => {
    const { keys } = await createProject(store.app);
    const foreign = await createOwners(store.app.client(keys.secret_test.token));
    const foreignImage = await createFile(store.app.client(keys.secret_test.token), 'image/jpeg');
    const { error } = await putAll(owner, {
      product_reference: foreign.product,
      variant_reference: foreign.variant,
      collection_reference: foreign.collection,
      customer_reference: foreign.customer,
      order_reference: foreign.order,
      image_reference: foreignImage,
    });
    expect(error!.error.code).toBe('validation_error');
    expect(error!.error.details).toEqual([
      {
        field: 'product_reference',
        message: `product_reference names no product of this project (${foreign.product}).`,
      },
      {
        field: 'variant_reference',
        message: `variant_reference names no variant of this project (${foreign.variant}).`,
      },
      {
        field: 'collection_reference',
        message: `collection_reference names no collection of this project (${foreign.collection}).`,
      },
      {
        field: 'customer_reference',
        message: `customer_reference names no customer of this project (${foreign.customer}).`,
      },
      { field: 'order_reference', message: `order_reference names no order of this project (${foreign.order}).` },
      {
        field: 'image_reference',
        message: `image_reference names no registered image of this project (${foreignImage}).`,
      },
    ]);
  });

  test('deleted products, their variants and deleted customers cannot be referenced', async () => {
    const product = await createProduct(store.api);
    const customer = await createCustomer(store.api);
    await store.api.DELETE('/v1/products/{id}', byId(product.id));
    await store.api.DELETE('/v1/customers/{id}', byId(customer.id));
    const { error } = await putAll(owner, {
      list_product_reference: [owners.product, product.id],
      variant_reference: product.variants[0].id,
      customer_reference: customer.id,
    });
    expect(error!.error.details!.map((d) => d.message)).toEqual([
      `list_product_reference[1] names no product of this project (${product.id}).`,
      `variant_reference names no variant of this project (${product.variants[0].id}).`,
      `customer_reference names no customer of this project (${customer.id}).`,
    ]);
  });

  test('a list of references is checked item by item in one batch', async () => {
    const { response, data } = await putAll(owner, {
      list_video_reference: [files.video, files.video],
      list_order_reference: [owners.order],
    });
    expect(response.status).toBe(200);
    expect(data!.data.list_video_reference.value).toEqual([files.video, files.video]);
  });
});

describe('setProductMetafields: a batch', () => {
  test('writes the values sent, null clears one, slugs not sent keep theirs; answers the full object', async () => {
    const target = (await createProduct(store.api)).id;
    await putAll(target, { rating: 4, color: '#000000', boolean: false });
    const { data, response } = await putAll(target, { rating: 5, color: null });
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({
      rating: { slug: 'rating', label: 'rating', type: 'rating', choices: null, value: 5 },
      boolean: { slug: 'boolean', label: 'boolean', type: 'boolean', choices: null, value: false },
    });
    expect(await read(target)).toEqual(data!.data);
    // An empty batch changes nothing.
    expect((await putAll(target, {})).data!.data).toEqual(data!.data);
  });

  test('one invalid value rejects the whole batch: 400 invalid_request naming the slug, nothing written', async () => {
    const target = (await createProduct(store.api)).id;
    await putAll(target, { rating: 2 });
    const { error, response } = await putAll(target, {
      rating: 3,
      integer: 7,
      email: 'a@example.com',
      decimal: 'cheap',
    });
    expect(response.status).toBe(400);
    expect(error!.error).toEqual({
      code: 'invalid_request',
      field: 'decimal',
      message: 'decimal must be a number with at most 2 decimal places.',
    });
    expect(await read(target)).toEqual({
      rating: { slug: 'rating', label: 'rating', type: 'rating', choices: null, value: 2 },
    });
  });

  test('several invalid values answer validation_error with one detail per slug; unknown and archived slugs are invalid', async () => {
    const target = (await createProduct(store.api)).id;
    const archived = await createDefinition(store.api, { slug: 'retired' });
    await store.api.DELETE('/v1/store/metafields/{owner_type}/{slug}', {
      params: { path: { owner_type: 'product', slug: 'retired' } },
    });
    const { error, response } = await putAll(target, { rating: 0, nope: 'x', [archived.slug]: 'x', boolean: true });
    expect(response.status).toBe(400);
    expect(error!.error).toEqual({
      code: 'validation_error',
      message: '3 metafield values are invalid; nothing was written.',
      details: [
        { field: 'rating', message: 'rating must be a whole number from 1 to 5.' },
        { field: 'nope', message: 'nope is not an active product metafield definition.' },
        { field: 'retired', message: 'retired is not an active product metafield definition.' },
      ],
    });
    expect(await read(target)).toEqual({});
  });

  test('a definition of another owner type is not a slug of this one', async () => {
    await createDefinition(store.api, { slug: 'customer_only', owner_type: 'customer', value_type: 'boolean' });
    const { error } = await putAll(owner, { customer_only: true });
    expect(error!.error).toEqual({
      code: 'invalid_request',
      field: 'customer_only',
      message: 'customer_only is not an active product metafield definition.',
    });
  });

  test("a required definition's value cannot be cleared: not with null in a batch, not with null alone, not with DELETE", async () => {
    const required = await createDefinition(store.api, {
      slug: 'gtin',
      required: true,
      value_type: 'single_line_text',
    });
    const target = (await createProduct(store.api)).id;
    expect((await putOne(target, required.slug, '4006381333931')).response.status).toBe(200);
    const batch = await putAll(target, { gtin: null, rating: 3 });
    expect(batch.error!.error).toEqual({
      code: 'invalid_request',
      field: 'gtin',
      message: 'gtin is required; its value cannot be cleared.',
    });
    const single = await putOne(target, 'gtin', null);
    expect(single.error!.error).toEqual({
      code: 'invalid_request',
      field: 'gtin',
      message: 'gtin must have a value; DELETE removes a value.',
    });
    const removed = await store.api.DELETE('/v1/products/{id}/metafields/{slug}', onePath(target, 'gtin'));
    expect(removed.response.status).toBe(400);
    expect(removed.error!.error).toEqual({
      code: 'invalid_request',
      field: 'gtin',
      message: 'gtin is required; its value cannot be removed.',
    });
    expect((await read(target)).gtin.value).toBe('4006381333931');
  });

  test('the body must be an object keyed by slugs (raw requests)', async () => {
    const send = (body: string) =>
      fetch(`${store.app.baseUrl}/v1/products/${owner}/metafields`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${store.keys.secret_test.token}`, 'Content-Type': 'application/json' },
        body,
      });
    const list = await send('[1, 2]');
    expect(list.status).toBe(400);
    expect((await json(list)).error).toMatchObject({ code: 'invalid_request', field: 'body' });
    const badKey = await send('{"Not A Slug": 1}');
    expect((await json(badKey)).error).toMatchObject({ code: 'invalid_request', field: 'Not A Slug' });
    const malformed = await send('{"rating": ');
    expect((await json(malformed)).error.code).toBe('invalid_request');
  });
});

describe('values of archived definitions', () => {
  test('are kept but appear nowhere until the definition is restored', async () => {
    const definition = await createDefinition(store.api, { slug: 'season', value_type: 'single_line_text' });
    const target = (await createProduct(store.api)).id;
    await putOne(target, 'season', 'Winter');
    const definitionPath = { params: { path: { owner_type: 'product' as const, slug: definition.id } } };
    await store.api.DELETE('/v1/store/metafields/{owner_type}/{slug}', definitionPath);
    expect(await read(target)).toEqual({});
    const expanded = await store.api.GET('/v1/products/{id}', {
      params: { path: { id: target }, query: { expand: ['metafields'] } },
    });
    expect(expanded.data!.data.metafields).toEqual({});
    expect((await putOne(target, 'season', 'Summer')).response.status).toBe(404);
    await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', { ...definitionPath, body: { archived: false } });
    expect((await read(target)).season.value).toBe('Winter');
  });
});

describe('owners and slugs in the path', () => {
  test('an unknown, deleted or foreign product is 404 on every value operation', async () => {
    const deleted = await createProduct(store.api);
    await store.api.DELETE('/v1/products/{id}', byId(deleted.id));
    const { keys } = await createProject(store.app);
    const foreign = await createProduct(store.app.client(keys.secret_test.token));
    for (const id of [UNKNOWN('prod_'), deleted.id, foreign.id, 'not-an-id']) {
      const get = await store.api.GET('/v1/products/{id}/metafields', byId(id));
      expect(get.response.status).toBe(404);
      expect(get.error).toEqual({ error: { code: 'not_found', message: 'Product not found.' } });
      expect((await putAll(id, { rating: 1 })).response.status).toBe(404);
      expect((await putOne(id, 'rating', 1)).response.status).toBe(404);
      expect(
        (await store.api.DELETE('/v1/products/{id}/metafields/{slug}', onePath(id, 'rating'))).response.status,
      ).toBe(404);
    }
  });

  test('an unknown slug in the path is 404; DELETE removes a value and keeps the definition; removing nothing is 204', async () => {
    const unknown = await putOne(owner, 'no_such_field', 1);
    expect(unknown.error).toEqual({
      error: { code: 'not_found', message: 'No active product metafield definition has the slug no_such_field.' },
    });
    const target = (await createProduct(store.api)).id;
    await putAll(target, { rating: 3, boolean: true });
    expect(
      (await store.api.DELETE('/v1/products/{id}/metafields/{slug}', onePath(target, 'rating'))).response.status,
    ).toBe(204);
    expect(Object.keys(await read(target))).toEqual(['boolean']);
    expect(
      (await store.api.DELETE('/v1/products/{id}/metafields/{slug}', onePath(target, 'rating'))).response.status,
    ).toBe(204);
    expect(
      (await store.api.DELETE('/v1/products/{id}/metafields/{slug}', onePath(target, 'nope'))).response.status,
    ).toBe(404);
    const definitions = (await store.api.GET('/v1/store/metafields', { params: { query: { owner_type: 'product' } } }))
      .data!.data;
    expect(definitions.some((d) => d.slug === 'rating')).toBe(true);
  });

  test('values are read in definition order', async () => {
    const target = (await createProduct(store.api)).id;
    const { data } = await putAll(target, { url: 'https://example.com', boolean: true, integer: 1 });
    expect(Object.keys(data!.data)).toEqual(['integer', 'url', 'boolean']);
  });
});

describe('the other owner types', () => {
  test('variants, collections, customers and orders take values of their own definitions', async () => {
    for (const ownerType of ['variant', 'collection', 'customer', 'order'] as const) {
      await createDefinition(store.api, { owner_type: ownerType, slug: 'note', value_type: 'multi_line_text' });
    }
    const body = { note: 'Handle with care.\nFragile.' };
    const calls = [
      [
        await store.api.PUT('/v1/variants/{id}/metafields', { ...byId(owners.variant), body }),
        await store.api.GET('/v1/variants/{id}/metafields', byId(owners.variant)),
      ],
      [
        await store.api.PUT('/v1/collections/{id}/metafields', { ...byId(owners.collection), body }),
        await store.api.GET('/v1/collections/{id}/metafields', byId(owners.collection)),
      ],
      [
        await store.api.PUT('/v1/customers/{id}/metafields', { ...byId(owners.customer), body }),
        await store.api.GET('/v1/customers/{id}/metafields', byId(owners.customer)),
      ],
      [
        await store.api.PUT('/v1/orders/{id}/metafields', { ...byId(owners.order), body }),
        await store.api.GET('/v1/orders/{id}/metafields', byId(owners.order)),
      ],
    ];
    for (const [put, get] of calls) {
      expect(put.response.status).toBe(200);
      expect(get.data!.data).toEqual({
        note: { slug: 'note', label: expect.any(String), type: 'multi_line_text', choices: null, value: body.note },
      });
    }
    const single = await store.api.PUT('/v1/orders/{id}/metafields/{slug}', {
      ...onePath(owners.order, 'note'),
      body: { value: 'Paid by bank transfer.' },
    });
    expect(single.data!.data.value).toBe('Paid by bank transfer.');
    expect(
      (await store.api.DELETE('/v1/customers/{id}/metafields/{slug}', onePath(owners.customer, 'note'))).response
        .status,
    ).toBe(204);
    expect((await store.api.GET('/v1/customers/{id}/metafields', byId(owners.customer))).data!.data).toEqual({});
  });

  test.each([
    ['variants', 'Variant not found.'],
    ['collections', 'Collection not found.'],
    ['customers', 'Customer not found.'],
    ['orders', 'Order not found.'],
  ] as const)('an unknown owner under /v1/%s is 404 "%s"', async (resource, message) => {
    const response = await fetch(`${store.app.baseUrl}/v1/${resource}/${UNKNOWN('x_')}/metafields`, {
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
    });
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: { code: 'not_found', message } });
  });
});

describe('purging deleted customers', () => {
  test('removes their metafield values in both modes with them', async () => {
    await createDefinition(store.api, { owner_type: 'customer', slug: 'loyalty_tier', value_type: 'single_line_text' });
    const customer = await createCustomer(store.api);
    const live = store.app.client(store.keys.secret_live.token);
    await store.api.PUT('/v1/customers/{id}/metafields', {
      ...byId(customer.id),
      body: { loyalty_tier: 'gold' },
    });
    await live.PUT('/v1/customers/{id}/metafields', { ...byId(customer.id), body: { loyalty_tier: 'silver' } });
    await store.api.DELETE('/v1/customers/{id}', byId(customer.id));
    const db = store.app.deps.db;
    expect(await db.metafieldValue.count({ where: { ownerId: customer.id } })).toBe(2);
    await db.customer.update({
      where: { id: customer.id },
      data: { deletedAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) },
    });
    expect(await purgeDeletedCustomers(db)).toBeGreaterThanOrEqual(1);
    expect(await db.metafieldValue.count({ where: { ownerId: customer.id } })).toBe(0);
  });
});
