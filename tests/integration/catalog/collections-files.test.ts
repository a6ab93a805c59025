import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();
const events = async (id: string) =>
  (await store.api.GET('/v1/events', { params: { query: { resource_id: id, order: 'asc' } } })).data!.data;

describe('collections', () => {
  test('create with a generated handle, add products (duplicates skipped), count live products, remove, delete', async () => {
    const created = await store.api.POST('/v1/collections', { body: { title: 'Summer Sale' } });
    expect(created.response.status).toBe(201);
    const collection = created.data!.data;
    expect(collection).toMatchObject({
      title: 'Summer Sale',
      handle: 'summer-sale',
      product_count: 0,
      description: null,
    });
    expect((await store.api.POST('/v1/collections', { body: { title: 'Summer  Sale!' } })).data!.data.handle).toBe(
      'summer-sale-2',
    );

    const a = await createProduct(store.api);
    const b = await createProduct(store.api);
    const added = await store.api.POST('/v1/collections/{id}/products', {
      ...byId(collection.id),
      body: { product_ids: [a.id, b.id, a.id] },
    });
    expect(added.data!.data.product_count).toBe(2);
    const again = await store.api.POST('/v1/collections/{id}/products', {
      ...byId(collection.id),
      body: { product_ids: [a.id] },
    });
    expect(again.data!.data.product_count).toBe(2);
    expect((await store.api.GET('/v1/products/{id}', byId(a.id))).data!.data.collection_ids).toEqual([collection.id]);
    const inCollection = await store.api.GET('/v1/products', { params: { query: { collection_id: collection.id } } });
    expect(inCollection.data!.data.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());

    await store.api.DELETE('/v1/products/{id}', byId(b.id));
    expect((await store.api.GET('/v1/collections/{id}', byId(collection.id))).data!.data.product_count).toBe(1);

    expect(
      (
        await store.api.DELETE('/v1/collections/{id}/products/{product_id}', {
          params: { path: { id: collection.id, product_id: a.id } },
        })
      ).response.status,
    ).toBe(204);
    const missing = await store.api.DELETE('/v1/collections/{id}/products/{product_id}', {
      params: { path: { id: collection.id, product_id: a.id } },
    });
    expect(missing.response.status).toBe(404);

    expect((await store.api.DELETE('/v1/collections/{id}', byId(collection.id))).response.status).toBe(204);
    expect((await store.api.GET('/v1/collections/{id}', byId(collection.id))).response.status).toBe(404);
    expect((await store.api.GET('/v1/products/{id}', byId(a.id))).response.status).toBe(200);
    expect((await events(collection.id)).map((e) => e.type)).toEqual([
      'collection.created',
      'collection.updated',
      'collection.updated',
      'collection.deleted',
    ]);
  });

  test('adding an unknown or foreign product answers 400 and adds nothing', async () => {
    const collection = (await store.api.POST('/v1/collections', { body: { title: 'Strict' } })).data!.data;
    const mine = await createProduct(store.api);
    const other = await createProject(store.app);
    const theirs = await createProduct(store.app.client(other.keys.secret_test.token));
    const { error } = await store.api.POST('/v1/collections/{id}/products', {
      ...byId(collection.id),
      body: { product_ids: [mine.id, theirs.id] },
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'product_ids' });
    expect((await store.api.GET('/v1/collections/{id}', byId(collection.id))).data!.data.product_count).toBe(0);
  });

  test('update records the changes; a taken handle answers 409; list sorts by title', async () => {
    const a = (await store.api.POST('/v1/collections', { body: { title: 'Zebra', description: 'Stripes' } })).data!
      .data;
    const b = (await store.api.POST('/v1/collections', { body: { title: 'Aardvark' } })).data!.data;
    const updated = await store.api.PATCH('/v1/collections/{id}', { ...byId(a.id), body: { description: null } });
    expect(updated.data!.data.description).toBeNull();
    expect((await events(a.id))[1].metadata.changes).toEqual({ description: { from: 'Stripes', to: null } });
    expect(
      (await store.api.PATCH('/v1/collections/{id}', { ...byId(b.id), body: { handle: a.handle } })).error!.error,
    ).toMatchObject({ code: 'conflict', field: 'handle' });
    const titles = (
      await store.api.GET('/v1/collections', { params: { query: { sort: 'title', order: 'asc', fields: ['title'] } } })
    ).data!.data.map((c) => c.title);
    expect(titles.indexOf('Aardvark')).toBeLessThan(titles.indexOf('Zebra'));
  });
});

describe('files', () => {
  test('images get img_ ids, other files file_ ids; both can be read back', async () => {
    const image = await store.api.POST('/v1/files', {
      body: { filename: 'hero.png', mime_type: 'image/png', size: 2048, url: 'https://cdn.example.com/hero.png' },
    });
    expect(image.response.status).toBe(201);
    expect(image.data!.data.id).toMatch(/^img_/);
    const video = await store.api.POST('/v1/files', {
      body: { filename: 'demo.mp4', mime_type: 'video/mp4', size: 10_000_000, url: 'https://cdn.example.com/demo.mp4' },
    });
    expect(video.data!.data.id).toMatch(/^file_/);
    expect((await store.api.GET('/v1/files/{id}', byId(video.data!.data.id))).data!.data).toEqual(video.data!.data);
  });

  test('validation and scoping: bad MIME type or URL 400, unknown or foreign file 404', async () => {
    const bad = await store.api.POST('/v1/files', {
      body: { filename: 'x', mime_type: 'not a type', size: 1, url: 'ftp://x' },
    });
    expect(bad.error!.error.code).toBe('validation_error');
    expect((await store.api.GET('/v1/files/{id}', byId('img_missing'))).response.status).toBe(404);
    const other = await createProject(store.app);
    const theirs = await store.app.client(other.keys.secret_test.token).POST('/v1/files', {
      body: { filename: 'a.pdf', mime_type: 'application/pdf', size: 1, url: 'https://x.example/a.pdf' },
    });
    expect((await store.api.GET('/v1/files/{id}', byId(theirs.data!.data.id))).response.status).toBe(404);
  });
});
