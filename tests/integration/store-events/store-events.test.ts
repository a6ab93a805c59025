import { beforeAll, describe, expect, test } from '@jest/globals';
import { purgeStoreEvents } from '../../../src/modules/store-events/store-events.service.js';
import { changedFields, recorderWith, recordEvent } from '../../../src/modules/store-events/store-events.recorder.js';
import { storeEventSubscribers } from '../../../src/modules/store-events/store-events.subscribers.js';
import { keyCtx } from '../../setup/ctx.js';
import { createProject } from '../../factories/project.factory.js';
import { buildStoreEvent, createStoreEvent } from '../../factories/store-event.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  const key = store.keys.secret_test.id;
  await createStoreEvent(store.app, store.project.id, key, {
    type: 'customer.created',
    resourceType: 'customer',
    resourceId: 'cus_a',
    summary: 'Customer a created',
    changes: undefined,
  });
  await createStoreEvent(store.app, store.project.id, key, {
    type: 'customer.updated',
    resourceType: 'customer',
    resourceId: 'cus_a',
    summary: 'Customer a updated',
    changes: { first_name: { from: 'Ann', to: 'Anna' } },
  });
  await createStoreEvent(store.app, store.project.id, key, {
    type: 'product.created',
    resourceType: 'product',
    resourceId: 'prod_b',
    summary: 'Product b created',
    changes: undefined,
  });
  await createStoreEvent(store.app, store.project.id, key, {
    type: 'customer.updated',
    resourceType: 'customer',
    resourceId: 'cus_c',
    summary: 'Customer c updated',
  });
  await createStoreEvent(store.app, store.project.id, key, {
    type: 'product.deleted',
    resourceType: 'product',
    resourceId: 'prod_b',
    summary: 'Product b deleted',
    changes: undefined,
  });
});

describe('listStoreEvents', () => {
  test('answers {data, pagination: {cursor, has_more, total}}, newest first by default', async () => {
    const { data, response } = await store.api.GET('/v1/events');
    expect(response.status).toBe(200);
    expect(data!.pagination).toEqual({ cursor: null, has_more: false, total: 5 });
    expect(data!.data.map((e) => e.type)).toEqual([
      'product.deleted',
      'customer.updated',
      'product.created',
      'customer.updated',
      'customer.created',
    ]);
    expect(data!.data[3]).toMatchObject({
      resource_type: 'customer',
      resource_id: 'cus_a',
      actor_type: 'api_key',
      actor_id: store.keys.secret_test.id,
      summary: 'Customer a updated',
      metadata: { changes: { first_name: { from: 'Ann', to: 'Anna' } } },
    });
  });

  test('order=asc lists oldest first', async () => {
    const { data } = await store.api.GET('/v1/events', { params: { query: { order: 'asc' } } });
    expect(data!.data[0].type).toBe('customer.created');
  });

  test('filters by type, resource_type and resource_id, with total counting the matches', async () => {
    const byType = await store.api.GET('/v1/events', { params: { query: { type: 'customer.updated' } } });
    expect(byType.data!.data.map((e) => e.resource_id)).toEqual(['cus_c', 'cus_a']);
    expect(byType.data!.pagination.total).toBe(2);
    const byResource = await store.api.GET('/v1/events', {
      params: { query: { resource_type: 'product', resource_id: 'prod_b' } },
    });
    expect(byResource.data!.data.map((e) => e.type)).toEqual(['product.deleted', 'product.created']);
  });

  test('walks every event once with a cursor, in both orders', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const { data } = await store.api.GET('/v1/events', { params: { query: { limit: 2, order, cursor } } });
        expect(data!.pagination.total).toBe(5);
        seen.push(...data!.data.map((e) => e.id));
        cursor = data!.pagination.cursor ?? undefined;
        expect(data!.pagination.has_more).toBe(cursor !== undefined);
      } while (cursor);
      expect(seen).toHaveLength(5);
      expect(new Set(seen).size).toBe(5);
    }
  });

  test('a tampered cursor answers 400 invalid_request with field cursor', async () => {
    const { data } = await store.api.GET('/v1/events', { params: { query: { limit: 2 } } });
    const cursor = data!.pagination.cursor!;
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
        k: ['2100-01-01T00:00:00.000Z', 'sevt_z'],
      }),
    ).toString('base64url');
    for (const bad of [`${forged}.${mac}`, `${payload}.AAAA${mac.slice(4)}`, 'garbage', `${cursor}x`]) {
      const { error, response } = await store.api.GET('/v1/events', { params: { query: { cursor: bad } } });
      expect(response.status).toBe(400);
      expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    }
  });

  test('a cursor used with other filters or another order answers 400 with field cursor', async () => {
    const { data } = await store.api.GET('/v1/events', { params: { query: { limit: 2 } } });
    const cursor = data!.pagination.cursor!;
    const otherFilter = await store.api.GET('/v1/events', { params: { query: { cursor, type: 'customer.updated' } } });
    expect(otherFilter.error!.error.field).toBe('cursor');
    const otherOrder = await store.api.GET('/v1/events', { params: { query: { cursor, order: 'asc' } } });
    expect(otherOrder.error!.error.field).toBe('cursor');
  });

  test("another project's cursor is refused", async () => {
    const other = await createProject(store.app);
    await createStoreEvent(store.app, other.project.id, other.keys.secret_test.id);
    await createStoreEvent(store.app, other.project.id, other.keys.secret_test.id);
    const { data } = await store.app
      .client(other.keys.secret_test.token)
      .GET('/v1/events', { params: { query: { limit: 1 } } });
    const { response } = await store.api.GET('/v1/events', {
      params: { query: { limit: 1, cursor: data!.pagination.cursor! } },
    });
    expect(response.status).toBe(400);
  });

  test('fields keeps id and the named fields; unknown names are ignored', async () => {
    const { data } = await store.api.GET('/v1/events', {
      params: { query: { fields: ['type', 'nonsense'], limit: 1 } },
    });
    expect(Object.keys(data!.data[0]).sort()).toEqual(['id', 'type']);
    const onlyUnknown = await store.api.GET('/v1/events', { params: { query: { fields: ['nonsense'], limit: 1 } } });
    expect(Object.keys(onlyUnknown.data!.data[0])).toEqual(['id']);
  });

  test("lists only the caller project's events", async () => {
    const other = await createProject(store.app);
    const { data } = await store.app.client(other.keys.secret_test.token).GET('/v1/events');
    expect(data!.data).toEqual([]);
    expect(data!.pagination.total).toBe(0);
  });
});

describe('getStoreEvent', () => {
  test('answers {data: event}, with sparse fields', async () => {
    const { data: list } = await store.api.GET('/v1/events', { params: { query: { limit: 1 } } });
    const id = list!.data[0].id;
    const { data, response } = await store.api.GET('/v1/events/{id}', { params: { path: { id } } });
    expect(response.status).toBe(200);
    expect(data!.data).toEqual(list!.data[0]);
    const sparse = await store.api.GET('/v1/events/{id}', { params: { path: { id }, query: { fields: ['summary'] } } });
    expect(sparse.data!.data).toEqual({ id, summary: list!.data[0].summary });
  });

  test('an unknown id answers 404 not_found "Event not found."', async () => {
    const { error, response } = await store.api.GET('/v1/events/{id}', {
      params: { path: { id: 'sevt_doesnotexist' } },
    });
    expect(response.status).toBe(404);
    expect(error).toEqual({ error: { code: 'not_found', message: 'Event not found.' } });
  });

  test("another project's event answers 404", async () => {
    const other = await createProject(store.app);
    const event = await createStoreEvent(store.app, other.project.id, other.keys.secret_test.id);
    const { response } = await store.api.GET('/v1/events/{id}', { params: { path: { id: event.id } } });
    expect(response.status).toBe(404);
  });

  test('events cannot be modified or deleted: PATCH, PUT and DELETE answer 405', async () => {
    const { data } = await store.api.GET('/v1/events', { params: { query: { limit: 1 } } });
    for (const method of ['PATCH', 'PUT', 'DELETE']) {
      const response = await fetch(`${store.app.baseUrl}/v1/events/${data!.data[0].id}`, {
        method,
        headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
  });
});

describe('recordEvent', () => {
  test('writes inside the caller transaction: subscribers run in it, and a rollback leaves no event', async () => {
    const project = await createProject(store.app);
    const ctx = await keyCtx(store.app, project.project.id, project.keys.secret_test.id);
    const seen: string[] = [];
    const record = recorderWith([
      async (tx, _ctx, event) => {
        seen.push(event.type);
        // Subscribers share the transaction: what they write commits or rolls back with the event.
        await tx.storeEvent.count();
      },
    ]);
    await expect(
      store.app.deps.db.$transaction(async (tx) => {
        await record(tx, ctx, buildStoreEvent());
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await store.app.deps.db.storeEvent.count({ where: { projectId: project.project.id } })).toBe(0);
    expect(seen).toEqual(['product.updated']);

    await store.app.deps.db.$transaction((tx) => record(tx, ctx, buildStoreEvent({ type: 'product.created' })));
    expect(await store.app.deps.db.storeEvent.count({ where: { projectId: project.project.id } })).toBe(1);
    expect(seen).toEqual(['product.updated', 'product.created']);
  });

  test('the recorder of the services fans out to the static subscriber list and records the acting key', async () => {
    const project = await createProject(store.app);
    const ctx = await keyCtx(store.app, project.project.id, project.keys.secret_test.id);
    expect(Array.isArray(storeEventSubscribers)).toBe(true);
    const event = await store.app.deps.db.$transaction((tx) => recordEvent(tx, ctx, buildStoreEvent()));
    expect(event).toMatchObject({
      actorType: 'api_key',
      actorId: project.keys.secret_test.id,
      projectId: project.project.id,
    });
  });

  test('changedFields lists only the fields whose values differ, as {from, to}', () => {
    const changes = changedFields(
      { title: 'Old', price: 100, tags: ['a'], vendor: null },
      { title: 'New', price: 100, tags: ['a', 'b'], vendor: 'Acme' },
      ['title', 'price', 'tags', 'vendor'],
    );
    expect(changes).toEqual({
      title: { from: 'Old', to: 'New' },
      tags: { from: ['a'], to: ['a', 'b'] },
      vendor: { from: null, to: 'Acme' },
    });
  });
});

describe('purge-store-events job', () => {
  test('keeps 7 days on the free plan and 90 days on the pro plan', async () => {
    const free = await createProject(store.app, { plan: 'free' });
    const pro = await createProject(store.app, { plan: 'pro' });
    const at = async (projectId: string, keyId: string, ageDays: number) => {
      const event = await createStoreEvent(store.app, projectId, keyId, { summary: `${ageDays} days old` });
      await store.app.deps.db.storeEvent.update({
        where: { id: event.id },
        data: { createdAt: new Date(Date.now() - ageDays * DAY) },
      });
    };
    for (const age of [1, 6, 8, 89, 91]) {
      await at(free.project.id, free.keys.secret_test.id, age);
      await at(pro.project.id, pro.keys.secret_test.id, age);
    }
    await purgeStoreEvents(store.app.deps.db);
    const left = async (projectId: string) =>
      (await store.app.deps.db.storeEvent.findMany({ where: { projectId }, orderBy: { createdAt: 'desc' } })).map(
        (e) => e.summary,
      );
    expect(await left(free.project.id)).toEqual(['1 days old', '6 days old']);
    expect(await left(pro.project.id)).toEqual(['1 days old', '6 days old', '8 days old', '89 days old']);
  });
});
