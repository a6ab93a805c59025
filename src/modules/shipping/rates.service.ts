import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { ShippingRate } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';
import { findOwned } from '../../shared/owned.js';
import { keepRows, lockRows, writeTx } from '../../shared/write.js';
import { changedFields, recordEvent, type FieldChanges } from '../store-events/index.js';
import { checkBounds, type RateBounds } from './rate-bounds.js';
import { toRateResource, type RateResource } from './shipping.mappers.js';
import { findZone, zonePayload } from './zones.service.js';

type RateCreate = components['schemas']['ShippingRateCreate'];
type RateUpdate = components['schemas']['ShippingRateUpdate'];

const UPDATABLE_FIELDS = [
  'name',
  'description',
  'price',
  'currency',
  'min_order_subtotal',
  'max_order_subtotal',
  'min_order_weight',
  'max_order_weight',
  'min_delivery_days',
  'max_delivery_days',
  'is_active',
  'position',
] as const;

const toBig = (value: number | null | undefined) =>
  value === undefined ? undefined : value === null ? null : BigInt(value);

/** The project's rate; 404 "Shipping rate not found." otherwise. */
export function findRate(ctx: Ctx, tx: Tx, id: string): Promise<ShippingRate> {
  return findOwned(ctx, tx.shippingRate, id, 'Shipping rate not found.');
}

function boundsOf(rate: RateResource): RateBounds {
  const {
    min_order_subtotal,
    max_order_subtotal,
    min_order_weight,
    max_order_weight,
    min_delivery_days,
    max_delivery_days,
  } = rate;
  return {
    min_order_subtotal,
    max_order_subtotal,
    min_order_weight,
    max_order_weight,
    min_delivery_days,
    max_delivery_days,
  };
}

/**
 * A rate change is a change of its zone: records shipping.zone.updated for the zone, with the rate's
 * changes under `rates.<rate id>` (`{from: null, to: rate}` on create, `{from: rate, to: null}` on delete)
 * and the zone with its rates as payload.
 */
async function recordZoneChange(
  tx: Tx,
  ctx: Ctx,
  zoneId: string,
  summary: string,
  changes: FieldChanges,
): Promise<void> {
  const zone = await findZone(ctx, tx, zoneId);
  await recordEvent(tx, ctx, {
    type: 'shipping.zone.updated',
    resourceType: 'shipping_zone',
    resourceId: zoneId,
    summary: `Shipping zone "${zone.name}": ${summary}`,
    changes,
    payload: await zonePayload(tx, zone),
  });
}

/** Creates a rate in the zone (currency that exists, min ≤ max per bound pair) and records the zone's change. */
export async function createRate(ctx: Ctx, zoneId: string, input: RateCreate): Promise<RateResource> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    // Held, so a deletion of the zone under way finishes first and the zone is then 404, not a broken foreign key.
    await keepRows(tx, 'shipping_zones', { projectId: ctx.project.id, ids: [zoneId] });
    await findZone(ctx, tx, zoneId);
    const draft = {
      min_order_subtotal: input.min_order_subtotal ?? null,
      max_order_subtotal: input.max_order_subtotal ?? null,
      min_order_weight: input.min_order_weight ?? null,
      max_order_weight: input.max_order_weight ?? null,
      min_delivery_days: input.min_delivery_days ?? null,
      max_delivery_days: input.max_delivery_days ?? null,
    };
    checkBounds(draft, new Set(Object.keys(input)));
    const rate = await tx.shippingRate.create({
      data: {
        id: newId('shr_'),
        zoneId,
        projectId: ctx.project.id,
        name: input.name,
        description: input.description ?? null,
        price: BigInt(input.price ?? 0),
        currency: input.currency,
        minOrderSubtotal: toBig(draft.min_order_subtotal),
        maxOrderSubtotal: toBig(draft.max_order_subtotal),
        minOrderWeight: draft.min_order_weight,
        maxOrderWeight: draft.max_order_weight,
        minDeliveryDays: draft.min_delivery_days,
        maxDeliveryDays: draft.max_delivery_days,
        isActive: input.is_active ?? true,
        position: input.position ?? 0,
      },
    });
    const resource = toRateResource(rate);
    await recordZoneChange(tx, ctx, zoneId, `rate "${rate.name}" (${rate.id}) created`, {
      [`rates.${rate.id}`]: { from: null, to: resource },
    });
    return resource;
  });
}

/** Applies the fields sent (null clears a bound), checks the bounds of the result, and records the zone's change; unchanged input writes nothing. */
export async function updateRate(ctx: Ctx, id: string, input: RateUpdate): Promise<RateResource> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    // Locked before it is read, so two PATCHes of one rate check their bounds one after the other.
    await lockRows(tx, 'shipping_rates', { projectId: ctx.project.id, ids: [id] });
    const before = toRateResource(await findRate(ctx, tx, id));
    const proposed: RateResource = { ...before, ...withoutUndefined(input) };
    checkBounds(boundsOf(proposed), new Set(Object.keys(input)));
    const changes = changedFields(before, proposed, UPDATABLE_FIELDS);
    if (Object.keys(changes).length === 0) return before;
    const after = await tx.shippingRate.update({
      where: { id },
      data: {
        name: input.name,
        description: input.description,
        price: toBig(input.price) ?? undefined,
        currency: input.currency,
        minOrderSubtotal: toBig(input.min_order_subtotal),
        maxOrderSubtotal: toBig(input.max_order_subtotal),
        minOrderWeight: input.min_order_weight,
        maxOrderWeight: input.max_order_weight,
        minDeliveryDays: input.min_delivery_days,
        maxDeliveryDays: input.max_delivery_days,
        isActive: input.is_active,
        position: input.position,
      },
    });
    const prefixed = Object.fromEntries(
      Object.entries(changes).map(([field, change]) => [`rates.${id}.${field}`, change]),
    );
    await recordZoneChange(
      tx,
      ctx,
      after.zoneId,
      `rate "${after.name}" (${id}) updated (${Object.keys(changes).join(', ')})`,
      prefixed,
    );
    return toRateResource(after);
  });
}

function withoutUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Deletes the rate and records the zone's change. */
export async function deleteRate(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const rate = await findRate(ctx, tx, id);
    await tx.shippingRate.delete({ where: { id } });
    await recordZoneChange(tx, ctx, rate.zoneId, `rate "${rate.name}" (${id}) deleted`, {
      [`rates.${id}`]: { from: toRateResource(rate), to: null },
    });
  });
}
