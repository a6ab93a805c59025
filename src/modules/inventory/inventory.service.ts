import type { Tx } from '../../db/client.js';
import type { InventoryLevel, Location, Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { findVariant, toVariantResource } from '../catalog/index.js';
import { recordEvent, type StoreEventInput } from '../store-events/index.js';
import { reservedAt, reservedUnits } from './reserved-units.js';
import { updatedAtAfterStockMove } from './stock-visibility.js';

/** A level (its `available` column is on hand) with the units live reservations hold there. */
export type ReservedLevel = InventoryLevel & { reserved: number };

/** Locks the variants (in id order, so concurrent writers cannot deadlock) for the rest of the transaction. */
export async function lockVariants(tx: Tx, variantIds: string[]): Promise<void> {
  await lockRows(tx, 'variants', { ids: variantIds });
}

/**
 * Recomputes each variant's inventory_quantity from its levels (its updated_at moves only when in_stock changes);
 * records inventory.low for those that dropped below their threshold.
 */
export async function syncVariantTotals(tx: Tx, ctx: Ctx, before: Variant[]): Promise<void> {
  for (const variant of before) {
    const { _sum } = await tx.inventoryLevel.aggregate({ where: { variantId: variant.id }, _sum: { available: true } });
    const total = _sum.available ?? 0;
    if (total === variant.inventoryQuantity) continue;
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

/**
 * Sets the units of a variant available at a location: on hand becomes that plus the units live
 * reservations hold there, so reservations keep their units. The variant row is locked, so concurrent
 * changes to it queue up and none is lost; the adjustment (of on hand), the variant total and any
 * inventory.low event are written in the same transaction.
 */
export async function setInventoryLevel(
  ctx: Ctx,
  input: { variant_id: string; location_id: string; available: number },
): Promise<ReservedLevel> {
  const projectId = ctx.project.id;
  return writeTx(ctx, {}, async (tx) => {
    await lockVariants(tx, [input.variant_id]);
    const variant = await findVariant(ctx, tx, input.variant_id);
    await stockLocation(ctx, tx, input.location_id, 'location_id');
    const key = { variantId_locationId: { variantId: variant.id, locationId: input.location_id } };
    const previous = (await tx.inventoryLevel.findUnique({ where: key }))?.available ?? 0;
    const reserved = reservedAt(await reservedUnits(tx, [variant.id]), variant.id, input.location_id);
    const onHand = input.available + reserved;
    const level = await tx.inventoryLevel.upsert({
      where: key,
      create: { variantId: variant.id, locationId: input.location_id, projectId, available: onHand },
      update: { available: onHand },
    });
    if (onHand !== previous) {
      await tx.inventoryAdjustment.create({
        data: {
          id: newId('iadj_'),
          projectId,
          variantId: variant.id,
          locationId: input.location_id,
          reason: 'set',
          delta: onHand - previous,
          availableAfter: onHand,
        },
      });
      await syncVariantTotals(tx, ctx, [variant]);
    }
    return { ...level, reserved };
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
