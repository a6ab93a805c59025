import { describe, expect, test } from '@jest/globals';
import { buildDefinition, createDefinition } from '../../factories/metafield.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

const store = useStore();

type OwnerType = 'product' | 'variant' | 'collection' | 'customer' | 'order';
const path = (owner_type: OwnerType, slug: string) => ({ params: { path: { owner_type, slug } } });
const listOf = async (owner_type: OwnerType) =>
  (await store.api.GET('/v1/store/metafields', { params: { query: { owner_type } } })).data!.data;

describe('createMetafieldDefinition', () => {
  test('applies the defaults; key mf_N per project; slug from the label', async () => {
    const { project, keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const first = await createDefinition(api, {
      label: 'Care guide',
      owner_type: 'collection',
      value_type: 'multi_line_text',
    });
    expect(first).toMatchObject({
      key: 'mf_1',
      slug: 'care-guide',
      label: 'Care guide',
      description: null,
      owner_type: 'collection',
      value_type: 'multi_line_text',
      choices: null,
      position: 0,
      required: false,
      storefront_visible: true,
      archived: false,
    });
    expect(first.id).toMatch(/^mfd_[0-9a-z]{26}$/);
    const second = await createDefinition(api, { label: 'Care guide', owner_type: 'collection' });
    expect(second).toMatchObject({ key: 'mf_2', slug: 'care-guide-2', position: 1 });
    // Another owner type has its own slugs; keys count per project.
    expect(await createDefinition(api, { label: 'Care guide', owner_type: 'order' })).toMatchObject({
      key: 'mf_3',
      slug: 'care-guide',
      position: 0,
    });
    // A project of its own (its keys start at mf_1), not the file's.
    expect(project.id).toMatch(/^proj_[0-9a-z]{26}$/);
    expect(project.id).not.toBe(store.project.id);
  });

  test('keeps every optional field', async () => {
    const body = buildDefinition({
      owner_type: 'customer',
      value_type: 'list.integer',
      slug: 'shoe_sizes',
      description: 'EU sizes bought',
      choices: ['40', '41', '42'],
      required: true,
      storefront_visible: false,
    });
    const { data, response } = await store.api.POST('/v1/store/metafields', { body });
    expect(response.status).toBe(201);
    expect(data!.data).toMatchObject({ ...body, archived: false });
  });

  test('an explicit slug an active definition of the owner type has is 409 conflict on slug', async () => {
    await createDefinition(store.api, { slug: 'fit-notes', owner_type: 'variant' });
    const { error, response } = await store.api.POST('/v1/store/metafields', {
      body: buildDefinition({ slug: 'fit-notes', owner_type: 'variant' }),
    });
    expect(response.status).toBe(409);
    expect(error!.error).toEqual({
      code: 'conflict',
      message: 'An active variant metafield definition already has the slug fit-notes.',
      field: 'slug',
    });
  });

  test('concurrent creates with one label get distinct slugs and keys', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        store.api.POST('/v1/store/metafields', {
          body: { label: 'Same label', owner_type: 'order', value_type: 'boolean' },
        }),
      ),
    );
    expect(results.map((r) => r.response.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const created = results.map((r) => r.data!.data);
    expect(new Set(created.map((d) => d.slug)).size).toBe(6);
    expect(new Set(created.map((d) => d.key)).size).toBe(6);
    expect(new Set(created.map((d) => d.position)).size).toBe(6);
  });

  test('with a position it is inserted there and the later ones move down; past the end means the end', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const a = await createDefinition(api, { label: 'A' });
    const b = await createDefinition(api, { label: 'B' });
    const c = await createDefinition(api, { label: 'C', position: 0 });
    const d = await createDefinition(api, { label: 'D', position: 99 });
    const list = (await api.GET('/v1/store/metafields', { params: { query: { owner_type: 'product' } } })).data!.data;
    expect(list.map((x) => [x.id, x.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
      [d.id, 3],
    ]);
  });

  test.each([
    [
      'choices',
      { value_type: 'decimal', choices: ['1.5'] },
      'choices are only for single_line_text, integer, list.single_line_text, list.integer definitions.',
    ],
    [
      'choices',
      { value_type: 'integer', choices: ['10', 'ten'] },
      'choices[1] must be a whole number written as a string, e.g. "10".',
    ],
    [
      'choices',
      { value_type: 'single_line_text', choices: ['a\nb'] },
      'choices[0] must be a single line (no line breaks).',
    ],
    ['choices', { choices: Array.from({ length: 101 }, (_, i) => `c${i}`) }, 'choices must have at most 100 items.'],
    ['choices', { choices: ['x', 'x'] }, 'choices must not contain duplicates.'],
    [
      'slug',
      { slug: 'Bad Slug' },
      'slug must start with a lowercase letter or digit and hold only lowercase letters, digits, _ and -.',
    ],
    ['slug', { slug: 's'.repeat(51) }, 'slug must be at most 50 characters long.'],
    ['label', { label: 'l'.repeat(101) }, 'label must be at most 100 characters long.'],
    ['label', { label: '   ' }, 'label must not be blank.'],
    ['description', { description: 'd'.repeat(256) }, 'description must be at most 255 characters long.'],
    [
      'owner_type',
      { owner_type: 'company' },
      'owner_type must be one of: product, variant, collection, customer, order.',
    ],
    ['value_type', { value_type: 'list.boolean' }, undefined],
    ['position', { position: -1 }, 'position must be at least 0.'],
  ])('an invalid %s answers 400 invalid_request naming it', async (field, overrides, message) => {
    const { error, response } = await store.api.POST('/v1/store/metafields', {
      body: buildDefinition(overrides as never),
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field, ...(message && { message }) });
  });

  test('label, owner_type and value_type are required', async () => {
    const { error } = await store.api.POST('/v1/store/metafields', { body: {} as never });
    expect(error!.error.code).toBe('validation_error');
    expect(error!.error.details!.map((d) => d.field).sort()).toEqual(['label', 'owner_type', 'value_type']);
  });

  test('a failed create does not use up a key: keys stay mf_1, mf_2, ... without gaps', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    await createDefinition(api, { slug: 'taken' });
    expect((await api.POST('/v1/store/metafields', { body: buildDefinition({ slug: 'taken' }) })).response.status).toBe(
      409,
    );
    expect((await createDefinition(api)).key).toBe('mf_2');
  });
});

describe('listMetafieldDefinitions', () => {
  test('active definitions only, by owner type and position; owner_type filters; test and live keys see the same', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const p1 = await createDefinition(api, { owner_type: 'product' });
    const c1 = await createDefinition(api, { owner_type: 'customer' });
    const p2 = await createDefinition(api, { owner_type: 'product' });
    const gone = await createDefinition(api, { owner_type: 'product' });
    await api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('product', gone.slug));

    const all = (await api.GET('/v1/store/metafields')).data!.data;
    expect(all.map((d) => d.id)).toEqual([c1.id, p1.id, p2.id]);
    const live = store.app.client(keys.secret_live.token);
    expect((await live.GET('/v1/store/metafields')).data!.data).toEqual(all);
    expect(
      (await api.GET('/v1/store/metafields', { params: { query: { owner_type: 'product' } } })).data!.data.map(
        (d) => d.id,
      ),
    ).toEqual([p1.id, p2.id]);
  });

  test('publishable keys cannot read definitions (403)', async () => {
    const { response, error } = await store.app.client(store.keys.publishable_test.token).GET('/v1/store/metafields');
    expect(response.status).toBe(403);
    expect(error!.error.code).toBe('forbidden');
  });
});

describe('updateMetafieldDefinition', () => {
  test('applies the fields sent; choices null removes them; the {slug} segment also takes the id', async () => {
    const definition = await createDefinition(store.api, { owner_type: 'collection', choices: ['a', 'b'] });
    const { data, response } = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('collection', definition.slug),
      body: {
        label: 'Badge',
        description: 'Shown on the tile',
        choices: null,
        required: true,
        storefront_visible: false,
        slug: 'badge',
      },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      id: definition.id,
      key: definition.key,
      label: 'Badge',
      description: 'Shown on the tile',
      choices: null,
      required: true,
      storefront_visible: false,
      slug: 'badge',
    });
    const byId = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('collection', definition.id),
      body: { description: null },
    });
    expect(byId.data!.data).toMatchObject({ slug: 'badge', description: null });
  });

  test.each(['owner_type', 'value_type', 'key'])('%s is locked: sending it answers 400 naming it', async (field) => {
    const definition = await createDefinition(store.api);
    const { error, response } = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', definition.slug),
      body: { [field]: field === 'key' ? 'mf_99' : field === 'owner_type' ? 'variant' : 'integer' } as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('choices must suit the locked value type', async () => {
    const definition = await createDefinition(store.api, { value_type: 'rating' });
    const { error } = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', definition.slug),
      body: { choices: ['1'] },
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'choices' });
  });

  test('a slug another active definition of the owner type has is 409; an unknown slug or owner type is 404', async () => {
    const one = await createDefinition(store.api, { owner_type: 'order' });
    const other = await createDefinition(store.api, { owner_type: 'order' });
    const clash = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('order', other.slug),
      body: { slug: one.slug },
    });
    expect(clash.response.status).toBe(409);
    expect(clash.error!.error).toMatchObject({ code: 'conflict', field: 'slug' });
    const missing = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('order', 'no-such-field'),
      body: { label: 'x' },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ error: { code: 'not_found', message: 'Metafield definition not found.' } });
    const wrongOwner = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('customer', one.id),
      body: { label: 'x' },
    });
    expect(wrongOwner.response.status).toBe(404);
  });

  test('a definition of another project is 404, by slug and by id', async () => {
    const { keys } = await createProject(store.app);
    const foreign = await createDefinition(store.app.client(keys.secret_test.token), { slug: 'foreign-only' });
    for (const slug of [foreign.slug, foreign.id]) {
      expect(
        (
          await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
            ...path('product', slug),
            body: { label: 'x' },
          })
        ).response.status,
      ).toBe(404);
      expect(
        (await store.api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('product', slug))).response.status,
      ).toBe(404);
    }
  });

  test('an empty body answers 400', async () => {
    const definition = await createDefinition(store.api);
    const { error } = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', definition.slug),
      body: {},
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', message: 'Send at least one field.' });
  });
});

describe('archive and restore', () => {
  test('archiving frees the slug; a new definition takes it; restoring the old one is 409, and succeeds by id with a new slug', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const old = await createDefinition(api, { label: 'Care guide', slug: 'care', owner_type: 'product' });
    const after = await createDefinition(api, { label: 'Other' });
    const archived = await api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('product', 'care'));
    expect(archived.response.status).toBe(204);
    // The positions after it moved up; it left the list.
    expect((await api.GET('/v1/store/metafields')).data!.data.map((d) => [d.id, d.position])).toEqual([[after.id, 0]]);

    const replacement = await createDefinition(api, { label: 'Care v2', slug: 'care' });
    expect(replacement).toMatchObject({ slug: 'care', key: 'mf_3', position: 1 });

    const bySlug = await api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', 'care'),
      body: { archived: false },
    });
    // The slug names the active definition now: restoring it changes nothing.
    expect(bySlug.data!.data.id).toBe(replacement.id);
    const byId = await api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', old.id),
      body: { archived: false },
    });
    expect(byId.response.status).toBe(409);
    expect(byId.error!.error).toMatchObject({ code: 'conflict', field: 'slug' });
    expect(byId.error!.error.message).toMatch(/took the slug care while this one was archived/);
    const takenNew = await api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', old.id),
      body: { archived: false, slug: after.slug },
    });
    expect(takenNew.response.status).toBe(409);

    const restored = await api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('product', old.id),
      body: { archived: false, slug: 'care-old' },
    });
    expect(restored.response.status).toBe(200);
    expect(restored.data!.data).toMatchObject({
      id: old.id,
      key: 'mf_1',
      slug: 'care-old',
      archived: false,
      position: 2,
    });
    expect((await api.GET('/v1/store/metafields')).data!.data.map((d) => d.slug)).toEqual([
      after.slug,
      'care',
      'care-old',
    ]);
  });

  test('by slug, an archived definition whose slug is free is found and restored; PATCH archived true archives too', async () => {
    const definition = await createDefinition(store.api, { owner_type: 'variant' });
    const archived = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('variant', definition.slug),
      body: { archived: true },
    });
    expect(archived.data!.data).toMatchObject({ archived: true });
    expect((await listOf('variant')).map((d) => d.id)).not.toContain(definition.id);
    // Archiving again changes nothing.
    expect(
      (await store.api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('variant', definition.slug))).response
        .status,
    ).toBe(204);
    const restored = await store.api.PATCH('/v1/store/metafields/{owner_type}/{slug}', {
      ...path('variant', definition.slug),
      body: { archived: false },
    });
    expect(restored.data!.data).toMatchObject({ id: definition.id, archived: false });
    expect((await listOf('variant')).map((d) => d.id)).toContain(definition.id);
  });

  test('archived keys are never reused', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const first = await createDefinition(api);
    await api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('product', first.slug));
    expect((await createDefinition(api)).key).toBe('mf_2');
  });
});

describe('reorderMetafieldDefinitions', () => {
  test('gives the listed order and answers the full list; other owner types keep theirs', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const [a, b, c] = [
      await createDefinition(api, { owner_type: 'customer' }),
      await createDefinition(api, { owner_type: 'customer' }),
      await createDefinition(api, { owner_type: 'customer' }),
    ];
    const product = await createDefinition(api, { owner_type: 'product' });
    const { data, response } = await api.PUT('/v1/store/metafields/{owner_type}/reorder', {
      params: { path: { owner_type: 'customer' } },
      body: { order: [c.id, a.id, b.id] },
    });
    expect(response.status).toBe(200);
    expect(data!.data.map((d) => [d.id, d.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);
    const products = (await api.GET('/v1/store/metafields', { params: { query: { owner_type: 'product' } } })).data!
      .data;
    expect(products.map((d) => [d.id, d.position])).toEqual([[product.id, 0]]);
  });

  test('must list exactly the active ids of the owner type: 400 on order naming the missing and extra ones', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const a = await createDefinition(api, { owner_type: 'order' });
    const b = await createDefinition(api, { owner_type: 'order' });
    const archived = await createDefinition(api, { owner_type: 'order' });
    await api.DELETE('/v1/store/metafields/{owner_type}/{slug}', path('order', archived.slug));
    const other = await createDefinition(api, { owner_type: 'product' });
    const reorder = (order: string[]) =>
      api.PUT('/v1/store/metafields/{owner_type}/reorder', {
        params: { path: { owner_type: 'order' } },
        body: { order },
      });

    const missing = await reorder([b.id]);
    expect(missing.response.status).toBe(400);
    expect(missing.error!.error).toEqual({
      code: 'invalid_request',
      field: 'order',
      message: `order must list every active order definition once. Missing: ${a.id}.`,
    });
    const extra = await reorder([b.id, a.id, archived.id, other.id]);
    expect(extra.error!.error).toMatchObject({
      field: 'order',
      message: `order must list every active order definition once. Not active definitions of this owner type: ${archived.id}, ${other.id}.`,
    });
    const duplicate = await reorder([b.id, a.id, a.id]);
    expect(duplicate.error!.error).toMatchObject({ code: 'invalid_request', field: 'order' });
    expect((await reorder([b.id, a.id])).data!.data.map((d) => d.id)).toEqual([b.id, a.id]);
  });

  test('an owner type without definitions takes an empty order; an unknown owner type is 400', async () => {
    const { keys } = await createProject(store.app);
    const api = store.app.client(keys.secret_test.token);
    const empty = await api.PUT('/v1/store/metafields/{owner_type}/reorder', {
      params: { path: { owner_type: 'variant' } },
      body: { order: [] },
    });
    expect(empty.data).toEqual({ data: [] });
    const response = await fetch(`${store.app.baseUrl}/v1/store/metafields/company/reorder`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${keys.secret_test.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ order: [] }),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'owner_type' });
  });
});
