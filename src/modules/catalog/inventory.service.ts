import type { Database, Tx } from '../../db/client.js';
import type { InventoryLevel, Variant } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { AppError, ownedOrNotFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { actorOf, recordStoreEvent } from '../store-events/store-events.recorder.js';
import { toVariantResource } from './catalog.mappers.js';
import { findVariant } from './variants.service.js';

/** Locks the variants (in id order, so concurrent writers cannot deadlock) for the rest of the transaction. */
export async function lockVariants(tx: Tx, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await tx.$queryRaw`SELECT id FROM variants WHERE id = ANY(${[...variantIds].sort()}) ORDER BY id FOR UPDATE`;
}

/** Recomputes each variant's inventory_quantity from its levels; records inventory.low for those that dropped below their threshold. */
export async function syncVariantTotals(tx: Tx, caller: KeyCaller, before: Variant[]): Promise<void> {
  for (const variant of before) {
    const { _sum } = await tx.inventoryLevel.aggregate({ where: { variantId: variant.id }, _sum: { available: true } });
    const total = _sum.available ?? 0;
    if (total === variant.inventoryQuantity) continue;
    const after = await tx.variant.update({ where: { id: variant.id }, data: { inventoryQuantity: total } });
    const threshold = variant.lowStockThreshold;
    if (threshold !== null && variant.inventoryQuantity >= threshold && total < threshold) {
      await recordStoreEvent(tx, caller.project.id, actorOf(caller), {
        type: 'inventory.low',
        resourceType: 'variant',
        resourceId: variant.id,
        summary: `Variant ${variant.id} is low on stock (${total} left, threshold ${threshold})`,
        changes: { inventory_quantity: { from: variant.inventoryQuantity, to: total } },
        payload: toVariantResource(after),
      });
    }
  }
}

/** An active, live location of the project for stock changes; 404 when unknown, 400 (on `field`) when inactive. */
export async function stockLocation(db: Database | Tx, projectId: string, id: string, field: string, notFoundMessage = 'Location not found.') {
  const location = ownedOrNotFound(await db.location.findUnique({ where: { id } }), projectId, notFoundMessage);
  if (!location.isActive) {
    throw new AppError('invalid_request', `Location ${id} is inactive and cannot receive or deduct stock. Activate it first.`, { field });
  }
  return location;
}

/**
 * Sets the units of a variant available at a location. The variant row is locked, so concurrent changes
 * to it queue up and none is lost; the adjustment, the variant total and any inventory.low event are
 * written in the same transaction.
 */
export async function setInventoryLevel(
  db: Database,
  caller: KeyCaller,
  input: { variant_id: string; location_id: string; available: number },
): Promise<InventoryLevel> {
  const projectId = caller.project.id;
  return db.$transaction(async (tx) => {
    await lockVariants(tx, [input.variant_id]);
    const variant = await findVariant(tx, projectId, input.variant_id);
    await stockLocation(tx, projectId, input.location_id, 'location_id');
    const key = { variantId_locationId: { variantId: variant.id, locationId: input.location_id } };
    const previous = (await tx.inventoryLevel.findUnique({ where: key }))?.available ?? 0;
    const level = await tx.inventoryLevel.upsert({
      where: key,
      create: { variantId: variant.id, locationId: input.location_id, projectId, available: input.available },
      update: { available: input.available },
    });
    if (input.available !== previous) {
      await tx.inventoryAdjustment.create({
        data: {
          id: newId('iadj_'), projectId, variantId: variant.id, locationId: input.location_id, reason: 'set',
          delta: input.available - previous, availableAfter: input.available,
        },
      });
      await syncVariantTotals(tx, caller, [variant]);
    }
    return level;
  });
}

/** The variant's levels, oldest location first. */
export async function listVariantLevels(db: Database, projectId: string, variantId: string) {
  await findVariant(db, projectId, variantId);
  return db.inventoryLevel.findMany({
    where: { variantId, location: { deletedAt: null } },
    orderBy: [{ location: { createdAt: 'asc' } }, { locationId: 'asc' }],
  });
}
