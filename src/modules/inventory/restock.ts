import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { keepRows } from '../../shared/write.js';
import type { StockAllocation } from './deduct-stock.js';
import { lockVariants, syncVariantTotals } from './inventory.service.js';

/**
 * Puts units back at the locations they left, in the caller's transaction: the variants are locked (id
 * order), each level grows by its units with an adjustment (reason `restock`) in the ledger, and the
 * variant totals follow. Variants deleted since, and locations deleted since, are skipped (their levels
 * are gone with them).
 */
export async function restockUnits(tx: Tx, ctx: Ctx, allocations: StockAllocation[]): Promise<void> {
  await addUnits(tx, ctx, allocations, 'restock');
}

/**
 * Adds units received from a supplier (a purchase order's receipt) as restockUnits adds returned ones, with
 * reason `purchase_order` in the ledger: levels grow, variant totals follow, deleted variants and locations
 * are skipped.
 */
export async function receiveUnits(tx: Tx, ctx: Ctx, allocations: StockAllocation[]): Promise<void> {
  await addUnits(tx, ctx, allocations, 'purchase_order');
}

async function addUnits(
  tx: Tx,
  ctx: Ctx,
  allocations: StockAllocation[],
  reason: 'restock' | 'purchase_order',
): Promise<void> {
  const units = allocations.filter((allocation) => allocation.quantity > 0);
  if (units.length === 0) return;
  const ids = [...new Set(units.map((allocation) => allocation.variant_id))];
  await lockVariants(tx, ctx.project.id, ids);
  const variants = await tx.variant.findMany({ where: { id: { in: ids }, projectId: ctx.project.id } });
  const live = new Set(variants.map((variant) => variant.id));
  const locationIds = units.map((allocation) => allocation.location_id);
  // Held until the levels are written, so a location deleted meanwhile is seen as deleted (and skipped).
  await keepRows(tx, 'locations', { projectId: ctx.project.id, ids: locationIds });
  const locations = new Set(
    (
      await tx.location.findMany({
        where: {
          id: { in: locationIds },
          projectId: ctx.project.id,
          deletedAt: null,
        },
        select: { id: true },
      })
    ).map((location) => location.id),
  );
  for (const { variant_id: variantId, location_id: locationId, quantity } of units) {
    if (!live.has(variantId) || !locations.has(locationId)) continue;
    const level = await tx.inventoryLevel.upsert({
      where: { variantId_locationId: { variantId, locationId } },
      create: { variantId, locationId, projectId: ctx.project.id, available: quantity },
      update: { available: { increment: quantity } },
    });
    await tx.inventoryAdjustment.create({
      data: {
        id: newId('iadj_'),
        projectId: ctx.project.id,
        variantId,
        locationId,
        reason,
        delta: quantity,
        availableAfter: level.available,
      },
    });
  }
  await syncVariantTotals(tx, ctx, variants);
}
