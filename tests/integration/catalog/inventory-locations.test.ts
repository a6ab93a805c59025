import { describe, expect, test } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createOrderedPurchaseOrder } from '../../factories/purchase-order.factory.js';
import { byId } from '../../setup/requests.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';
import { eventually, lockWaits } from '../../setup/wait.js';
import { setInventoryLevels } from '../../../src/modules/inventory/index.js';

type LocationCreate = components['schemas']['LocationCreate'];

const store = useStore();

const addLocation = async (body: Partial<LocationCreate> = {}, client = store.api) => {
  const { data, error, response } = await client.POST('/v1/locations', { body: { name: 'Warehouse', ...body } });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
};
const setLevel = (variant_id: string, location_id: string, available: number, client = store.api) =>
  client.PUT('/v1/inventory-levels', { body: { variant_id, location_id, available } });
const variantTotal = async (id: string, client = store.api) =>
  (await client.GET('/v1/variants/{id}', { params: { path: { id } } })).data!.data.inventory_quantity;
const location = async (id: string, client = store.api) =>
  (await client.GET('/v1/locations/{id}', { params: { path: { id } } })).data!.data;
const events = async (query: Record<string, string>) =>
  (await store.api.GET('/v1/events', { params: { query: { ...query, order: 'asc' } } })).data!.data;

/**
 * Holds a location's row (FOR UPDATE) in a transaction of its own, as a third writer would, from when the promise
 * resolves until `release()` (which waits for that transaction to end): requests that lock the row queue behind it.
 */
async function holdLocationRow(id: string): Promise<{ release(): Promise<void> }> {
  let holding!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const holder = store.app.deps.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM locations WHERE id = ${id} FOR UPDATE`;
      holding();
      await released;
    },
    { timeout: 20_000 },
  );
  await held;
  return {
    async release() {
      release();
      await holder;
    },
  };
}
describe('inventory levels', () => {
  test('a product with two variants stocked at two locations shows the right totals; transfer moves rows and keeps totals; the emptied location can be deleted', async () => {
    const product = await createProduct(store.api, {
      variants: [
        { title: 'S', price: 100 },
        { title: 'M', price: 100 },
      ],
    });
    const [s, m] = product.variants;
    const a = await addLocation({ name: 'Store A' });
    const b = await addLocation({ name: 'Store B' });
    for (const [variant, loc, units] of [
      [s, a, 5],
      [s, b, 3],
      [m, a, 7],
      [m, b, 1],
    ] as const) {
      expect((await setLevel(variant.id, loc.id, units)).response.status).toBe(200);
    }
    expect(await variantTotal(s.id)).toBe(8);
    expect(await variantTotal(m.id)).toBe(8);
    const levels = await store.api.GET('/v1/variants/{id}/inventory-levels', { params: { path: { id: s.id } } });
    expect(levels.data!.data.map((l) => [l.location_id, l.available])).toEqual([
      [a.id, 5],
      [b.id, 3],
    ]);
    expect(await location(a.id)).toMatchObject({ variant_count: 2, total_units: 12 });

    const moved = await store.api.POST('/v1/locations/{id}/transfer', {
      params: { path: { id: a.id } },
      body: { destination_location_id: b.id },
    });
    expect(moved.data).toEqual({ data: { transferred: 2 } });
    expect(await variantTotal(s.id)).toBe(8);
    expect(await variantTotal(m.id)).toBe(8);
    expect(await location(a.id)).toMatchObject({ variant_count: 0, total_units: 0 });
    expect(await location(b.id)).toMatchObject({ variant_count: 2, total_units: 16 });
    const adjustments = await store.app.deps.db.inventoryAdjustment.findMany({
      where: { variantId: s.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(adjustments.map((x) => [x.reason, x.delta, x.availableAfter])).toEqual(
      expect.arrayContaining([
        ['set', 5, 5],
        ['set', 3, 3],
        ['transfer_out', -5, 0],
        ['transfer_in', 5, 8],
      ]),
    );

    expect((await store.api.DELETE('/v1/locations/{id}', { params: { path: { id: a.id } } })).response.status).toBe(
      204,
    );
    expect((await store.api.GET('/v1/locations/{id}', { params: { path: { id: a.id } } })).response.status).toBe(404);
    expect((await addLocation({ name: 'Store A' })).handle).toBe('store-a');
  });

  test("transfer takes a sent draft's held units along: still held at the destination, only the draft gets them", async () => {
    const product = await createProduct(store.api, { title: 'Last Pair', variants: [{ title: 'EU 42', price: 9900 }] });
    const variantId = product.variants[0].id;
    const source = await addLocation({ name: 'Shop floor' });
    const destination = await addLocation({ name: 'Back room' });
    await setLevel(variantId, source.id, 5);
    const draftOf = async (quantity: number) => {
      const draft = await createDraftOrder(store.api, { currency: 'USD', customer_email: 'buyer@example.com' });
      await addItems(store.api, draft.id, [{ variant_id: variantId, quantity }]);
      return draft.id;
    };
    const held = await draftOf(5);
    expect((await store.api.POST('/v1/draft-orders/{id}/send', byId(held))).response.status).toBe(200);
    const moved = await store.api.POST('/v1/locations/{id}/transfer', {
      params: { path: { id: source.id } },
      body: { destination_location_id: destination.id },
    });
    expect(moved.data).toEqual({ data: { transferred: 1 } });
    const reservations = await store.app.deps.db.inventoryReservation.findMany({ where: { draftOrderId: held } });
    expect(reservations.map((r) => [r.locationId, r.quantity])).toEqual([[destination.id, 5]]);
    const other = await draftOf(1);
    const refused = await store.api.POST('/v1/draft-orders/{id}/complete', byId(other));
    expect(refused.response.status).toBe(409);
    expect((await store.api.POST('/v1/draft-orders/{id}/complete', byId(held))).response.status).toBe(201);
  });

  test('transfer takes held units along even where the variant has no level (a continue variant promised beyond stock)', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const source = project.project.default_location_id;
    const product = await createProduct(client, {
      variants: [{ title: 'Backorder', price: 100, inventory_policy: 'continue' }],
    });
    const variantId = product.variants[0].id;
    const draft = await createDraftOrder(client, { currency: 'USD', customer_email: 'buyer@example.com' });
    await addItems(client, draft.id, [{ variant_id: variantId, quantity: 3 }]);
    expect((await client.POST('/v1/draft-orders/{id}/send', byId(draft.id))).response.status).toBe(200);
    const destination = await addLocation({ name: 'New Home' }, client);
    await client.POST('/v1/locations/{id}/default', { params: { path: { id: destination.id } } });

    const moved = await client.POST('/v1/locations/{id}/transfer', {
      params: { path: { id: source } },
      body: { destination_location_id: destination.id },
    });
    expect(moved.data).toEqual({ data: { transferred: 0 } });
    const atDestination = await setLevel(variantId, destination.id, 0, client);
    expect(atDestination.data!.data).toMatchObject({ on_hand: 3, reserved: 3, available: 0 });
    const atSource = await setLevel(variantId, source, 0, client);
    expect(atSource.data!.data).toMatchObject({ on_hand: 0, reserved: 0, available: 0 });
  });

  test('a location holding units for a sent draft, without a level there, is not deleted until they are transferred', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const source = project.project.default_location_id;
    const product = await createProduct(client, {
      variants: [{ title: 'Backorder', price: 100, inventory_policy: 'continue' }],
    });
    const draft = await createDraftOrder(client, { currency: 'USD', customer_email: 'buyer@example.com' });
    await addItems(client, draft.id, [{ variant_id: product.variants[0].id, quantity: 3 }]);
    expect((await client.POST('/v1/draft-orders/{id}/send', byId(draft.id))).response.status).toBe(200);
    const destination = await addLocation({ name: 'Next Home' }, client);
    await client.POST('/v1/locations/{id}/default', { params: { path: { id: destination.id } } });
    const held = () => store.app.deps.db.inventoryReservation.findMany({ where: { draftOrderId: draft.id } });

    const refused = await client.DELETE('/v1/locations/{id}', { params: { path: { id: source } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error.message).toBe(
      'This location still holds units reserved for draft orders or checkouts. Transfer inventory before deleting this location.',
    );
    expect((await held()).map((r) => r.locationId)).toEqual([source]);

    await client.POST('/v1/locations/{id}/transfer', {
      params: { path: { id: source } },
      body: { destination_location_id: destination.id },
    });
    expect((await client.DELETE('/v1/locations/{id}', { params: { path: { id: source } } })).response.status).toBe(204);
    expect((await held()).map((r) => r.locationId)).toEqual([destination.id]);
  });

  test('a level that would take the variant total past the int32 maximum is 400 on available, not a 500; nothing changes', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const variantId = (await createProduct(client)).variants[0].id;
    const [a, b, c] = [
      project.project.default_location_id,
      ...[await addLocation({ name: 'Max B' }, client), await addLocation({ name: 'Max C' }, client)].map((l) => l.id),
    ];
    expect((await setLevel(variantId, a, 1_000_000_000, client)).response.status).toBe(200);
    expect((await setLevel(variantId, b, 1_000_000_000, client)).response.status).toBe(200);
    const refused = await setLevel(variantId, c, 1_000_000_000, client);
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'available' });
    expect(await variantTotal(variantId, client)).toBe(2_000_000_000);
    const levels = await client.GET('/v1/variants/{id}/inventory-levels', { params: { path: { id: variantId } } });
    expect(levels.data!.data.map((l) => l.location_id)).toEqual([a, b]);
    expect((await setLevel(variantId, c, 147_483_647, client)).response.status).toBe(200);
    expect(await variantTotal(variantId, client)).toBe(2_147_483_647);
  });

  test('parallel writes to one variant never lose an update: each level and the total are right', async () => {
    const product = await createProduct(store.api);
    const variant = product.variants[0];
    const locations: Array<{ id: string }> = [];
    for (let i = 0; i < 6; i++) locations.push(await addLocation({ name: `Parallel ${i}` }));
    const results = await Promise.all(locations.map((loc, i) => setLevel(variant.id, loc.id, (i + 1) * 10)));
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect(await variantTotal(variant.id)).toBe(10 + 20 + 30 + 40 + 50 + 60);
    const rounds = await Promise.all(Array.from({ length: 10 }, (_, i) => setLevel(variant.id, locations[0].id, i)));
    expect(rounds.every((r) => r.response.status === 200)).toBe(true);
    const level0 = (await store.api.GET('/v1/variants/{id}/inventory-levels', { params: { path: { id: variant.id } } }))
      .data!.data[0].available;
    expect(await variantTotal(variant.id)).toBe(level0 + 20 + 30 + 40 + 50 + 60);
    const sum = await store.app.deps.db.inventoryAdjustment.aggregate({
      where: { variantId: variant.id },
      _sum: { delta: true },
    });
    expect(sum._sum.delta).toBe(await variantTotal(variant.id));
  });

  test('dropping below the low-stock threshold records inventory.low once', async () => {
    const product = await createProduct(store.api, {
      variants: [{ title: 'Only', price: 100, low_stock_threshold: 5 }],
    });
    const variant = product.variants[0];
    const loc = await addLocation({ name: 'Low Stock' });
    await setLevel(variant.id, loc.id, 10);
    await setLevel(variant.id, loc.id, 6);
    await setLevel(variant.id, loc.id, 4);
    await setLevel(variant.id, loc.id, 2);
    const low = await events({ type: 'inventory.low', resource_id: variant.id });
    expect(low).toHaveLength(1);
    expect(low[0].metadata.changes).toEqual({ inventory_quantity: { from: 6, to: 4 } });
  });

  test('an inactive location cannot receive stock (400); unknown variant or location 404; negative amounts 400', async () => {
    const product = await createProduct(store.api);
    const inactive = await addLocation({ name: 'Dormant' });
    await store.api.PATCH('/v1/locations/{id}', { params: { path: { id: inactive.id } }, body: { is_active: false } });
    const refused = await setLevel(product.variants[0].id, inactive.id, 1);
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'location_id' });
    expect((await setLevel('var_unknown', inactive.id, 1)).response.status).toBe(404);
    expect((await setLevel(product.variants[0].id, 'loc_unknown', 1)).response.status).toBe(404);
    expect((await setLevel(product.variants[0].id, inactive.id, -1)).error!.error.field).toBe('available');
  });

  test('setInventoryLevels (for the demo catalog): levels in one transaction, a level named twice ends as the later says, one total and adjustment per change; a refused level writes none', async () => {
    const product = await createProduct(store.api, {
      variants: [
        { title: 'S', price: 100 },
        { title: 'M', price: 100 },
      ],
    });
    const [s, m] = product.variants;
    const a = await addLocation({ name: 'Bulk A' });
    const b = await addLocation({ name: 'Bulk B' });
    const ctx = await keyCtx(store.app, store.project.id, store.keys.secret_test.id);
    const levels = await setInventoryLevels(ctx, [
      { variant_id: s.id, location_id: a.id, available: 5 },
      { variant_id: s.id, location_id: b.id, available: 3 },
      { variant_id: m.id, location_id: a.id, available: 7 },
      { variant_id: s.id, location_id: a.id, available: 2 },
    ]);
    expect(levels.map((level) => level.available)).toEqual([5, 3, 7, 2]);
    expect(await variantTotal(s.id)).toBe(5);
    expect(await variantTotal(m.id)).toBe(7);
    const adjustments = await store.app.deps.db.inventoryAdjustment.findMany({
      where: { variantId: s.id, locationId: a.id },
      orderBy: { id: 'asc' },
    });
    expect(adjustments.map((adjustment) => [adjustment.delta, adjustment.availableAfter])).toEqual([
      [5, 5],
      [-3, 2],
    ]);

    const inactive = await addLocation({ name: 'Bulk dormant' });
    await store.api.PATCH('/v1/locations/{id}', { params: { path: { id: inactive.id } }, body: { is_active: false } });
    await expect(
      setInventoryLevels(ctx, [
        { variant_id: m.id, location_id: b.id, available: 9 },
        { variant_id: m.id, location_id: inactive.id, available: 1 },
      ]),
    ).rejects.toMatchObject({ code: 'invalid_request', options: { field: 'location_id' } });
    expect(await variantTotal(m.id)).toBe(7);
    expect(await store.app.deps.db.inventoryLevel.count({ where: { variantId: m.id, locationId: b.id } })).toBe(0);
  });
});

describe('locations', () => {
  test('every project has a default location; create answers without stock counts and never as default', async () => {
    const list = (await store.api.GET('/v1/locations', { params: { query: { order: 'asc' } } })).data!;
    expect(list.data[0]).toMatchObject({ is_default: true, is_active: true, id: store.project.default_location_id });
    const created = await addLocation({ name: 'Pop-up Berlin', type: 'popup', country: 'DE', metadata: { floor: 2 } });
    expect(created).toMatchObject({
      name: 'Pop-up Berlin',
      handle: 'pop-up-berlin',
      type: 'popup',
      is_default: false,
      country: 'DE',
      metadata: { floor: 2 },
    });
    expect(created).not.toHaveProperty('variant_count');
    expect(list.data[0]).not.toHaveProperty('total_units');
    expect((await events({ resource_id: created.id }))[0].type).toBe('location.created');
  });

  test('set-default moves the default in one step; already default is unchanged; the target must be active', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const next = await addLocation({ name: 'Next Default' }, client);
    const { data } = await client.POST('/v1/locations/{id}/default', { params: { path: { id: next.id } } });
    expect(data!.data).toMatchObject({ is_default: true, variant_count: 0, total_units: 0 });
    const old = (
      await client.GET('/v1/locations/{id}', { params: { path: { id: project.project.default_location_id } } })
    ).data!.data;
    expect(old.is_default).toBe(false);
    const again = await client.POST('/v1/locations/{id}/default', { params: { path: { id: next.id } } });
    expect(again.data!.data.updated_at).toBe(data!.data.updated_at);
    const defaults = await store.app.deps.db.location.count({
      where: { projectId: project.project.id, isDefault: true },
    });
    expect(defaults).toBe(1);
    const updates = (await client.GET('/v1/events', { params: { query: { type: 'location.updated' } } })).data!.data;
    expect(updates.map((e) => e.metadata.changes?.is_default)).toEqual(
      expect.arrayContaining([
        { from: false, to: true },
        { from: true, to: false },
      ]),
    );

    const inactive = await addLocation({ name: 'Sleepy' }, client);
    await client.PATCH('/v1/locations/{id}', { params: { path: { id: inactive.id } }, body: { is_active: false } });
    expect(
      (await client.POST('/v1/locations/{id}/default', { params: { path: { id: inactive.id } } })).response.status,
    ).toBe(400);
  });

  test('deactivating a location while it is being made the default: never an inactive default', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const target = await addLocation({ name: 'Contested' }, client);
    const db = store.app.deps.db;
    const waiting = async (count: number) => (await lockWaits(db, '%locations%')) === count;
    // A third transaction holds the target's row until set-default, then the PATCH (which read it first), wait for it.
    const holder = await holdLocationRow(target.id);
    const makeDefault = client.POST('/v1/locations/{id}/default', { params: { path: { id: target.id } } });
    expect(await eventually(() => waiting(1), { timeoutMs: 10_000 })).toBe(true);
    const deactivate = client.PATCH('/v1/locations/{id}', {
      params: { path: { id: target.id } },
      body: { is_active: false },
    });
    expect(await eventually(() => waiting(2), { timeoutMs: 10_000 })).toBe(true);
    await holder.release();
    const [defaulted, deactivated] = await Promise.all([makeDefault, deactivate]);
    expect(defaulted.response.status).toBe(200);
    expect(deactivated.response.status).toBe(400);
    expect(deactivated.error!.error).toMatchObject({ code: 'invalid_request', field: 'is_active' });
    expect(await location(target.id, client)).toMatchObject({ is_default: true, is_active: true });
  });

  test('stock set at a location while it is being deleted: never units at a deleted location', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const doomed = await addLocation({ name: 'Closing Down' }, client);
    const variantId = (await createProduct(client)).variants[0].id;
    const db = store.app.deps.db;
    const waiting = async (count: number) => (await lockWaits(db, '%locations%', '%inventory_levels%')) === count;
    // A third transaction holds the location's row until the delete, then the level write (which found the location
    // active first), wait for it.
    const holder = await holdLocationRow(doomed.id);
    const deleted = client.DELETE('/v1/locations/{id}', { params: { path: { id: doomed.id } } });
    expect(await eventually(() => waiting(1), { timeoutMs: 10_000 })).toBe(true);
    const stocked = setLevel(variantId, doomed.id, 7, client);
    expect(await eventually(() => waiting(2), { timeoutMs: 10_000 })).toBe(true);
    await holder.release();
    const [deleteAnswer, levelAnswer] = await Promise.all([deleted, stocked]);
    expect(deleteAnswer.response.status).toBe(204);
    expect(levelAnswer.response.status).toBe(404);
    expect(await db.inventoryLevel.count({ where: { locationId: doomed.id } })).toBe(0);
    expect(await variantTotal(variantId, client)).toBe(0);
  });

  test('a transfer to a location being deleted: never units at a deleted location', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const source = await addLocation({ name: 'Source' }, client);
    const doomed = await addLocation({ name: 'Destination Closing' }, client);
    const variantId = (await createProduct(client)).variants[0].id;
    expect((await setLevel(variantId, source.id, 5, client)).response.status).toBe(200);
    const db = store.app.deps.db;
    const waiting = async (count: number) => (await lockWaits(db, '%locations%', '%inventory_levels%')) === count;
    // A third transaction holds the destination's row until the delete, then the transfer, wait for it.
    const holder = await holdLocationRow(doomed.id);
    const deleted = client.DELETE('/v1/locations/{id}', { params: { path: { id: doomed.id } } });
    expect(await eventually(() => waiting(1), { timeoutMs: 10_000 })).toBe(true);
    const moved = client.POST('/v1/locations/{id}/transfer', {
      params: { path: { id: source.id } },
      body: { destination_location_id: doomed.id },
    });
    expect(await eventually(() => waiting(2), { timeoutMs: 10_000 })).toBe(true);
    await holder.release();
    const [deleteAnswer, transferAnswer] = await Promise.all([deleted, moved]);
    expect(deleteAnswer.response.status).toBe(204);
    expect(transferAnswer.response.status).toBe(404);
    expect(await db.inventoryLevel.count({ where: { locationId: doomed.id } })).toBe(0);
    expect(await location(source.id, client)).toMatchObject({ variant_count: 1, total_units: 5 });
    expect(await variantTotal(variantId, client)).toBe(5);
  });

  test('a purchase order received at a location being deleted: its units are not stocked there', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const doomed = await addLocation({ name: 'Receiving Closing' }, client);
    const variantId = (await createProduct(client)).variants[0].id;
    const order = await createOrderedPurchaseOrder(client, doomed.id, [[variantId, 4]]);
    const db = store.app.deps.db;
    const waiting = async (count: number) => (await lockWaits(db, '%locations%', '%inventory_levels%')) === count;
    // A third transaction holds the location's row until the delete, then the receipt, wait for it.
    const holder = await holdLocationRow(doomed.id);
    const deleted = client.DELETE('/v1/locations/{id}', { params: { path: { id: doomed.id } } });
    expect(await eventually(() => waiting(1), { timeoutMs: 10_000 })).toBe(true);
    const received = client.POST('/v1/purchase-orders/{id}/receive', {
      params: { path: { id: order.id } },
      body: { lines: [{ line_id: order.lines[0].id, quantity: 4 }] },
    });
    expect(await eventually(() => waiting(2), { timeoutMs: 10_000 })).toBe(true);
    await holder.release();
    const [deleteAnswer, receiveAnswer] = await Promise.all([deleted, received]);
    expect(deleteAnswer.response.status).toBe(204);
    expect(receiveAnswer.response.status).toBe(200);
    expect(await db.inventoryLevel.count({ where: { locationId: doomed.id } })).toBe(0);
    expect(await variantTotal(variantId, client)).toBe(0);
  });

  test('the default location cannot be deactivated or deleted; a stocked one cannot be deleted (the default is always active, so it is never the last active one)', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const defaultId = project.project.default_location_id;
    const deactivate = await client.PATCH('/v1/locations/{id}', {
      params: { path: { id: defaultId } },
      body: { is_active: false },
    });
    expect(deactivate.error!.error).toMatchObject({ code: 'invalid_request', field: 'is_active' });
    expect((await client.DELETE('/v1/locations/{id}', { params: { path: { id: defaultId } } })).error!.error.code).toBe(
      'invalid_request',
    );

    const stocked = await addLocation({ name: 'Stocked' }, client);
    const product = await createProduct(client);
    await setLevel(product.variants[0].id, stocked.id, 4, client);
    const refused = await client.DELETE('/v1/locations/{id}', { params: { path: { id: stocked.id } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error.message).toContain('Transfer inventory before deleting this location.');

    const other = await addLocation({ name: 'Only Other' }, client);
    await client.POST('/v1/locations/{id}/default', { params: { path: { id: other.id } } });
    await client.PATCH('/v1/locations/{id}', { params: { path: { id: stocked.id } }, body: { is_active: false } });
    await client.PATCH('/v1/locations/{id}', { params: { path: { id: defaultId } }, body: { is_active: false } });
    // `other` is now the default and the only active location; an inactive empty one can go.
    const emptyInactive = await addLocation({ name: 'Empty' }, client);
    await client.PATCH('/v1/locations/{id}', {
      params: { path: { id: emptyInactive.id } },
      body: { is_active: false },
    });
    expect(
      (await client.DELETE('/v1/locations/{id}', { params: { path: { id: emptyInactive.id } } })).response.status,
    ).toBe(204);
  });

  test('a location whose levels only add up to zero still holds inventory: delete refused, nothing changes', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    const formerDefault = project.project.default_location_id;
    const product = await createProduct(client, {
      variants: [
        { title: 'Backorder', price: 100, inventory_policy: 'continue' },
        { title: 'Stocked', price: 100 },
      ],
    });
    const [backorder, stocked] = product.variants;
    await setLevel(stocked.id, formerDefault, 2, client);
    // Sold beyond stock: the default location carries the shortfall, -2 units of `backorder`.
    const draft = await createDraftOrder(client, { currency: 'USD', customer_email: 'buyer@example.com' });
    await addItems(client, draft.id, [{ variant_id: backorder.id, quantity: 2 }]);
    expect((await client.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).response.status).toBe(201);
    const next = await addLocation({ name: 'Next Default' }, client);
    expect(
      (await client.POST('/v1/locations/{id}/default', { params: { path: { id: next.id } } })).response.status,
    ).toBe(200);

    const refused = await client.DELETE('/v1/locations/{id}', { params: { path: { id: formerDefault } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error.message).toContain('Transfer inventory before deleting this location.');
    const levels = await client.GET('/v1/variants/{id}/inventory-levels', { params: { path: { id: stocked.id } } });
    expect(levels.data!.data.map((l) => [l.location_id, l.on_hand])).toEqual([[formerDefault, 2]]);
  });

  test('without the locations extension create, delete, set-default and transfer answer 400; reads and updates work', async () => {
    const project = await createProject(store.app, { extensions: ['custom_data'] });
    const client = store.app.client(project.keys.secret_test.token);
    const id = project.project.default_location_id;
    const create = await client.POST('/v1/locations', { body: { name: 'Nope' } });
    expect(create.response.status).toBe(400);
    expect(create.error!.error.message).toContain('locations extension');
    expect((await client.DELETE('/v1/locations/{id}', { params: { path: { id } } })).response.status).toBe(400);
    expect((await client.POST('/v1/locations/{id}/default', { params: { path: { id } } })).response.status).toBe(400);
    expect(
      (
        await client.POST('/v1/locations/{id}/transfer', {
          params: { path: { id } },
          body: { destination_location_id: id },
        })
      ).response.status,
    ).toBe(400);
    expect((await client.GET('/v1/locations/{id}', { params: { path: { id } } })).response.status).toBe(200);
    expect(
      (await client.PATCH('/v1/locations/{id}', { params: { path: { id } }, body: { city: 'Oslo' } })).response.status,
    ).toBe(200);
  });

  test('transfer to itself, to an inactive or to an unknown location is refused', async () => {
    const a = await addLocation({ name: 'T1' });
    const b = await addLocation({ name: 'T2' });
    await store.api.PATCH('/v1/locations/{id}', { params: { path: { id: b.id } }, body: { is_active: false } });
    const transfer = (to: string) =>
      store.api.POST('/v1/locations/{id}/transfer', {
        params: { path: { id: a.id } },
        body: { destination_location_id: to },
      });
    expect((await transfer(a.id)).error!.error.field).toBe('destination_location_id');
    expect((await transfer(b.id)).error!.error.field).toBe('destination_location_id');
    expect((await transfer('loc_unknown')).response.status).toBe(404);
  });

  test('update: nullable fields cleared, metadata set to null, handle conflicts 409, is_default is not accepted', async () => {
    const a = await addLocation({ name: 'Upd A', phone: '123', metadata: { x: 1 } });
    const b = await addLocation({ name: 'Upd B' });
    const { data } = await store.api.PATCH('/v1/locations/{id}', {
      params: { path: { id: a.id } },
      body: { phone: null, metadata: null },
    });
    expect(data!.data).toMatchObject({ phone: null, metadata: null, variant_count: 0 });
    expect(
      (await store.api.PATCH('/v1/locations/{id}', { params: { path: { id: b.id } }, body: { handle: a.handle } }))
        .error!.error,
    ).toMatchObject({ code: 'conflict', field: 'handle' });
    const isDefault = await store.api.PATCH('/v1/locations/{id}', {
      params: { path: { id: b.id } },
      body: { is_default: true } as never,
    });
    expect(isDefault.error!.error).toMatchObject({ code: 'invalid_request', field: 'is_default' });
  });

  test('list filters by type and active, sorts by name, and excludes deleted locations', async () => {
    const project = await createProject(store.app);
    const client = store.app.client(project.keys.secret_test.token);
    await addLocation({ name: 'Zeta Online', type: 'online' }, client);
    const beta = await addLocation({ name: 'Beta Warehouse', type: 'warehouse' }, client);
    const gone = await addLocation({ name: 'Alpha Gone', type: 'warehouse' }, client);
    await client.DELETE('/v1/locations/{id}', { params: { path: { id: gone.id } } });
    await client.PATCH('/v1/locations/{id}', { params: { path: { id: beta.id } }, body: { is_active: false } });
    const names = async (query: object) =>
      (await client.GET('/v1/locations', { params: { query } })).data!.data.map((l) => l.name);
    expect(await names({ sort: 'name', order: 'asc' })).toEqual(['Beta Warehouse', 'Default location', 'Zeta Online']);
    expect(await names({ type: 'warehouse' })).toEqual(['Beta Warehouse']);
    expect(await names({ active: false })).toEqual(['Beta Warehouse']);
    expect((await names({ active: true })).sort()).toEqual(['Default location', 'Zeta Online']);
  });
});
