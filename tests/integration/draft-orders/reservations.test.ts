import { describe, expect, test } from '@jest/globals';
import { jobs } from '../../../src/jobs/registry.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { currency: 'EUR' } });
const { app, api } = store;

const send = (id: string) => api.POST('/v1/draft-orders/{id}/send', byId(id));
const complete = (id: string) => api.POST('/v1/draft-orders/{id}/complete', byId(id));
const level = async (variantId: string) =>
  (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.find(
    (l) => l.location_id === store.project.default_location_id,
  )!;
const eventsOf = async (draftId: string) =>
  (
    await api.GET('/v1/events', {
      params: { query: { resource_type: 'draft_order', resource_id: draftId, order: 'asc' } },
    })
  ).data!.data.filter((e) => e.type.startsWith('inventory.'));

/** A variant with `units` on hand at the default location. */
async function stocked(units: number, inventory_policy: 'deny' | 'continue' = 'deny'): Promise<string> {
  const product = await createProduct(api, {
    title: 'Trail Runner 2',
    variants: [{ title: 'EU 42', sku: null, price: 9900, inventory_policy }],
  });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: store.project.default_location_id, available: units },
  });
  return variantId;
}

/** A draft of `quantity` units of the variant, ready to send. */
async function draftOf(variantId: string, quantity: number) {
  const draft = await createDraftOrder(api, { currency: 'EUR', customer_email: 'buyer@example.com' });
  const [item] = await addItems(api, draft.id, [{ variant_id: variantId, quantity }]);
  return { draft, item };
}

describe('reservations of sent draft orders', () => {
  test('sending reserves the units: the level shows on_hand, reserved and available; another draft with deny cannot take them', async () => {
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 3);
    expect((await send(draft.id)).response.status).toBe(200);
    expect(await level(variantId)).toMatchObject({ on_hand: 5, reserved: 3, available: 2 });

    const other = await draftOf(variantId, 3);
    const refused = await complete(other.draft.id);
    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual({
      error: {
        code: 'conflict',
        message: `Not enough stock of Trail Runner 2 - EU 42 (${variantId}): 2 available at active locations, 3 ordered.`,
        field: variantId,
      },
    });
    // A new reservation sees only what is available too.
    const sendRefused = await send(other.draft.id);
    expect(sendRefused.response.status).toBe(409);
    expect(sendRefused.error?.error.field).toBe(variantId);
    expect((await api.GET('/v1/draft-orders/{id}', byId(other.draft.id))).data!.data.status).toBe('open');

    const events = await eventsOf(draft.id);
    expect(events.map((e) => e.type)).toEqual(['inventory.reserved']);
  });

  test('twenty concurrent sends of drafts wanting one unit each of a five-unit deny variant: five reserve, fifteen are 409', async () => {
    const variantId = await stocked(5);
    const drafts = await Promise.all(Array.from({ length: 20 }, () => draftOf(variantId, 1)));
    const answers = await Promise.all(drafts.map(({ draft }) => send(draft.id)));
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    expect(await level(variantId)).toMatchObject({ on_hand: 5, reserved: 5, available: 0 });
    // A refused send sent nothing: no e-mail, the draft still open.
    const refused = drafts.filter((_, index) => statuses[index] === 409).map(({ draft }) => draft.id);
    const stillOpen = await app.deps.db.draftOrder.count({ where: { id: { in: refused }, status: 'open' } });
    expect(stillOpen).toBe(15);
  });

  test('completing the sent draft consumes its reservation: on hand drops, nothing stays reserved', async () => {
    const variantId = await stocked(4);
    const { draft } = await draftOf(variantId, 3);
    await send(draft.id);
    expect((await complete(draft.id)).response.status).toBe(201);
    expect(await level(variantId)).toMatchObject({ on_hand: 1, reserved: 0, available: 1 });
    expect((await eventsOf(draft.id)).map((e) => e.type)).toEqual(['inventory.reserved']);
  });

  test('deleting the draft, or changing its items, releases the units and records inventory.released', async () => {
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 2);
    await send(draft.id);
    expect((await api.DELETE('/v1/draft-orders/{id}', byId(draft.id))).response.status).toBe(204);
    expect(await level(variantId)).toMatchObject({ reserved: 0, available: 5 });

    const edited = await draftOf(variantId, 2);
    await send(edited.draft.id);
    await api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      params: { path: { id: edited.draft.id, item_id: edited.item.id } },
      body: { quantity: 4 },
    });
    expect(await level(variantId)).toMatchObject({ reserved: 0, available: 5 });
    await send(edited.draft.id);
    expect(await level(variantId)).toMatchObject({ reserved: 4, available: 1 });
    const events = await eventsOf(edited.draft.id);
    expect(events.map((e) => e.type)).toEqual(['inventory.reserved', 'inventory.released', 'inventory.reserved']);
    expect(events[1].summary).toContain('released (items changed)');
  });

  test('sending again replaces the reservation instead of adding to it', async () => {
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 2);
    await send(draft.id);
    await send(draft.id);
    expect(await level(variantId)).toMatchObject({ reserved: 2, available: 3 });
  });

  test('the release job enqueued by the send frees the units once they expire (and not before)', async () => {
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 2);
    await send(draft.id);
    const [job] = await app.deps.db.$queryRawUnsafe<
      Array<{ data: { v: 1; projectId: string; draftOrderId: string }; start_after: Date }>
    >(
      `SELECT data, start_after FROM pgboss.job WHERE name = 'release-reservations' AND data->>'draftOrderId' = $1`,
      draft.id,
    );
    expect(job.data).toEqual({ v: 1, projectId: store.project.id, draftOrderId: draft.id });
    // Due in a day (the default reservation_minutes, 1440).
    expect(job.start_after.getTime() - Date.now()).toBeGreaterThan(1439 * 60_000);

    await jobs['release-reservations'].handle(app.deps, job.data);
    expect(await level(variantId)).toMatchObject({ reserved: 2 });

    await app.deps.db.inventoryReservation.updateMany({
      where: { draftOrderId: draft.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    // Past its expiry a reservation no longer counts, even before the job deletes it.
    expect(await level(variantId)).toMatchObject({ reserved: 0, available: 5 });
    await jobs['release-reservations'].handle(app.deps, job.data);
    expect(await app.deps.db.inventoryReservation.count({ where: { draftOrderId: draft.id } })).toBe(0);
    const events = await eventsOf(draft.id);
    expect(events.map((e) => [e.type, e.actor_id])).toEqual([
      ['inventory.reserved', expect.stringMatching(/^key_/)],
      ['inventory.released', 'system:release-reservations'],
    ]);
  });

  test('reservation_minutes 0 turns reservations off; a continue variant reserves beyond stock at the default location', async () => {
    const variantId = await stocked(1, 'continue');
    const { draft } = await draftOf(variantId, 3);
    expect((await send(draft.id)).response.status).toBe(200);
    expect(await level(variantId)).toMatchObject({ on_hand: 1, reserved: 3, available: -2 });

    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: store.project.id } },
      body: { reservation_minutes: 0 },
    });
    try {
      const other = await stocked(2);
      const { draft: unreserved } = await draftOf(other, 2);
      expect((await send(unreserved.id)).response.status).toBe(200);
      expect(await level(other)).toMatchObject({ on_hand: 2, reserved: 0, available: 2 });
    } finally {
      await app.platform.PATCH('/platform/v1/projects/{id}', {
        params: { path: { id: store.project.id } },
        body: { reservation_minutes: 1440 },
      });
    }
  });

  test('setting a level sets what is available: on hand becomes it plus what is reserved', async () => {
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 2);
    await send(draft.id);
    const set = await api.PUT('/v1/inventory-levels', {
      body: { variant_id: variantId, location_id: store.project.default_location_id, available: 10 },
    });
    expect(set.data!.data).toMatchObject({ on_hand: 12, reserved: 2, available: 10 });
    expect((await api.GET('/v1/variants/{id}', byId(variantId))).data!.data.inventory_quantity).toBe(12);
  });

  test('inventory.reserved and inventory.released are offered to webhook subscriptions', async () => {
    const webhook = await createWebhook(api, 'https://stock-hooks.example.com/', {
      events: ['inventory.reserved', 'inventory.released'],
    });
    const variantId = await stocked(5);
    const { draft } = await draftOf(variantId, 1);
    await send(draft.id);
    await api.DELETE('/v1/draft-orders/{id}', byId(draft.id));
    const deliveries = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    expect(deliveries.map((d) => d.eventType).sort()).toEqual(['inventory.released', 'inventory.reserved']);
  });
});
