import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { keepRows, lockRows, writeTx } from '../../shared/write.js';
import { lockVariants, stockLocation, syncVariantTotals } from '../inventory/index.js';
import { requireLocationsExtension } from './locations.service.js';
import { moveLevels } from './locations.sql.js';

/**
 * Moves every inventory level of a location to another in one transaction: destination levels created
 * or added to, source levels deleted, one adjustment each way per level, variant totals kept, the units drafts and
 * checkouts hold there still held at the destination. Both
 * locations must be active. Returns the number of level rows moved.
 */
export async function transferInventory(ctx: Ctx, sourceId: string, destinationId: string): Promise<number> {
  requireLocationsExtension(ctx);
  const projectId = ctx.project.id;
  if (sourceId === destinationId) {
    throw new AppError('invalid_request', 'The destination must be another location.', {
      field: 'destination_location_id',
    });
  }
  return writeTx(ctx, {}, async (tx) => {
    // The units held there move too: their checkouts and drafts are locked first, then the variants, the order their
    // own writers take them in (a completion releases its hold, then deducts under the variants' locks).
    const holders = await tx.inventoryReservation.findMany({
      where: { projectId, locationId: sourceId },
      select: { checkoutId: true, draftOrderId: true, variantId: true },
    });
    await lockRows(tx, 'checkouts', { projectId, ids: holders.flatMap((h) => (h.checkoutId ? [h.checkoutId] : [])) });
    await lockRows(tx, 'draft_orders', {
      projectId,
      ids: holders.flatMap((h) => (h.draftOrderId ? [h.draftOrderId] : [])),
    });
    const levels = await tx.inventoryLevel.findMany({ where: { locationId: sourceId }, select: { variantId: true } });
    // Units held where the variant has no level (a `continue` variant promised beyond stock) move too.
    const variantIds = [...new Set([...levels.map((l) => l.variantId), ...holders.map((h) => h.variantId)])];
    await lockVariants(tx, projectId, variantIds);
    // Then the locations, as every other stock writer takes them after the variants; held until the levels have
    // moved, so a concurrent delete of either location cannot leave units there.
    await keepRows(tx, 'locations', { projectId, ids: [sourceId, destinationId] });
    await stockLocation(ctx, tx, sourceId, 'id');
    await stockLocation(ctx, tx, destinationId, 'destination_location_id', 'Destination location not found.');
    const before = await tx.variant.findMany({ where: { id: { in: variantIds } } });
    // The levels read above move (their variants are locked); each gets one adjustment out and one in.
    const outIds = variantIds.map(() => newId('iadj_'));
    const inIds = variantIds.map(() => newId('iadj_'));
    const moved = await moveLevels(tx, { projectId, sourceId, destinationId }, variantIds, { outIds, inIds });
    await syncVariantTotals(tx, ctx, before);
    return moved;
  });
}
