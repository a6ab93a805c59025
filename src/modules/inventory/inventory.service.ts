import type { Tx } from '../../db/client.js';
import type { InventoryLevel, Location, Prisma, Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { keepRows, lockRows, writeTx } from '../../shared/write.js';
import { findVariant, toVariantResource } from '../catalog/index.js';
import { recordEvent, type StoreEventInput } from '../store-events/index.js';
import { levelKey, reservedAt, reservedUnits } from './reserved-units.js';
import { updatedAtAfterStockMove } from './stock-visibility.js';

/** A level (its `available` column is on hand) with the units live reservations hold there. */
export type ReservedLevel = InventoryLevel & { reserved: number };

/** Locks the project's variants of these ids (in id order, so concurrent writers cannot deadlock) for the rest of the transaction. */
export async function lockVariants(tx: Tx, projectId: string, variantIds: string[]): Promise<void> {
  await lockRows(tx, 'variants', { projectId, ids: variantIds });
}

/** The most units a variant can hold over all its locations: `inventory_quantity` is an int32 in the contract. */
const MAX_VARIANT_UNITS = 2_147_483_647;

/**
 * Recomputes each variant's inventory_quantity from its levels (its updated_at moves only when in_stock changes);
 * records inventory.low for those that dropped below their threshold. 400 (on `field` when given) when a total
 * would pass MAX_VARIANT_UNITS.
 */
export async function syncVariantTotals(tx: Tx, ctx: Ctx, before: Variant[], field?: string): Promise<void> {
  for (const variant of before) {
    const { _sum } = await tx.inventoryLevel.aggregate({ where: { variantId: variant.id }, _sum: { available: true } });
    const total = _sum.available ?? 0;
    if (total === variant.inventoryQuantity) continue;
    if (total > MAX_VARIANT_UNITS) {
      throw new AppError(
        'invalid_request',
        `Variant ${variant.id} would hold ${total} units over all locations; its total can be at most ${MAX_VARIANT_UNITS}.`,
        { field },
      );
    }
    const after = await tx.variant.update({
      where: { id: variant.id },
      data: { inventoryQuantity: total, updatedAt: updatedAtAfterStockMove(variant, total, new Date()) },
    });
    await recordLowStock(tx, ctx, variant, after);
  }
}

/** The inventory.low event when the variant's total went from at or above its low-stock threshold to below it. */
export function lowStockEvent(before: Variant, after: Variant): StoreEventInput | null {
  const threshold = before.lowStockThreshold;
  if (threshold === null || before.inventoryQuantity < threshold || after.inventoryQuantity >= threshold) return null;
  return {
    type: 'inventory.low',
    resourceType: 'variant',
    resourceId: after.id,
    summary: `Variant ${after.id} is low on stock (${after.inventoryQuantity} left, threshold ${threshold})`,
    changes: { inventory_quantity: { from: before.inventoryQuantity, to: after.inventoryQuantity } },
  };
}

/** Records inventory.low when the variant's total went from at or above its low-stock threshold to below it. */
export async function recordLowStock(tx: Tx, ctx: Ctx, before: Variant, after: Variant): Promise<void> {
  const event = lowStockEvent(before, after);
  if (event) await recordEvent(tx, ctx, { ...event, payload: toVariantResource(after) });
}

/** An active, live location of the project for stock changes; 404 when unknown, 400 (on `field`) when inactive. */
export async function stockLocation(
  ctx: Ctx,
  tx: Tx,
  id: string,
  field: string,
  notFoundMessage = 'Location not found.',
): Promise<Location> {
  const location = await findOwned(ctx, tx.location, id, notFoundMessage);
  if (!location.isActive) {
    throw new AppError(
      'invalid_request',
      `Location ${id} is inactive and cannot receive or deduct stock. Activate it first.`,
      { field },
    );
  }
  return location;
}

/** A level to set: the units of a variant available at a location. */
export interface LevelInput {
  variant_id: string;
  location_id: string;
  available: number;
}

/**
 * Sets the units of a variant available at a location: on hand becomes that plus the units live
 * reservations hold there, so reservations keep their units. The variant row is locked, so concurrent
 * changes to it queue up and none is lost; the adjustment (of on hand), the variant total and any
 * inventory.low event are written in the same transaction.
 */
export async function setInventoryLevel(ctx: Ctx, input: LevelInput): Promise<ReservedLevel> {
  const [level] = await setInventoryLevels(ctx, [input]);
  return level;
}

/**
 * Sets several levels as setInventoryLevel sets one, in order and in one transaction (all or nothing): the
 * variants locked together, one adjustment per level that changed, each variant's total and inventory.low once,
 * after all of its levels. A level named twice ends as the later input says.
 */
export async function setInventoryLevels(ctx: Ctx, inputs: LevelInput[]): Promise<ReservedLevel[]> {
  const projectId = ctx.project.id;
  const variantIds = [...new Set(inputs.map((input) => input.variant_id))];
  const locationIds = [...new Set(inputs.map((input) => input.location_id))];
  return writeTx(ctx, {}, async (tx) => {
    await lockVariants(tx, projectId, variantIds);
    const variants = new Map<string, Variant>();
    for (const id of variantIds) variants.set(id, await findVariant(ctx, tx, id));
    // Held until the levels are written, so a concurrent delete of a location cannot leave units there.
    await keepRows(tx, 'locations', { projectId, ids: locationIds });
    for (const id of locationIds) await stockLocation(ctx, tx, id, 'location_id');
    const existing = await tx.inventoryLevel.findMany({
      where: { variantId: { in: variantIds }, locationId: { in: locationIds } },
    });
    const onHandSoFar = new Map(
      existing.map((level) => [levelKey(level.variantId, level.locationId), level.available]),
    );
    const reserved = await reservedUnits(tx, variantIds);
    const levels: ReservedLevel[] = [];
    const adjustments: Prisma.InventoryAdjustmentCreateManyInput[] = [];
    for (const { variant_id: variantId, location_id: locationId, available } of inputs) {
      const key = levelKey(variantId, locationId);
      const previous = onHandSoFar.get(key) ?? 0;
      const reservedHere = reservedAt(reserved, variantId, locationId);
      const onHand = available + reservedHere;
      const level = await tx.inventoryLevel.upsert({
        where: { variantId_locationId: { variantId, locationId } },
        create: { variantId, locationId, projectId, available: onHand },
        update: { available: onHand },
      });
      onHandSoFar.set(key, onHand);
      if (onHand !== previous) {
        adjustments.push({
          id: newId('iadj_'),
          projectId,
          variantId,
          locationId,
          reason: 'set',
          delta: onHand - previous,
          availableAfter: onHand,
        });
      }
      levels.push({ ...level, reserved: reservedHere });
    }
    if (adjustments.length > 0) {
      await tx.inventoryAdjustment.createMany({ data: adjustments });
      const changed = new Set(adjustments.map((adjustment) => adjustment.variantId));
      await syncVariantTotals(
        tx,
        ctx,
        [...variants.values()].filter((variant) => changed.has(variant.id)),
        'available',
      );
    }
    return levels;
  });
}

/** The variant's levels with their live reserved units, oldest location first. */
export async function listVariantLevels(ctx: Ctx, variantId: string): Promise<ReservedLevel[]> {
  await findVariant(ctx, ctx.db, variantId);
  const levels = await ctx.db.inventoryLevel.findMany({
    where: { variantId, location: { deletedAt: null } },
    orderBy: [{ location: { createdAt: 'asc' } }, { locationId: 'asc' }],
  });
  const reserved = await reservedUnits(ctx.db, [variantId]);
  return levels.map((level) => ({ ...level, reserved: reservedAt(reserved, variantId, level.locationId) }));
}
