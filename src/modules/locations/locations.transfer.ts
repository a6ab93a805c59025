import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { lockVariants, stockLocation, syncVariantTotals } from '../inventory/index.js';
import { requireLocationsExtension } from './locations.service.js';

/**
 * Moves every inventory level of a location to another in one transaction: destination levels created
 * or added to, source levels deleted, one adjustment each way per level, variant totals kept. Both
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
    await stockLocation(ctx, tx, sourceId, 'id');
    await stockLocation(ctx, tx, destinationId, 'destination_location_id', 'Destination location not found.');

    const levels = await tx.inventoryLevel.findMany({ where: { locationId: sourceId }, select: { variantId: true } });
    const variantIds = levels.map((l) => l.variantId);
    await lockVariants(tx, variantIds);
    const before = await tx.variant.findMany({ where: { id: { in: variantIds } } });
    // The levels read above move (their variants are locked); each gets one adjustment out and one in.
    const outIds = variantIds.map(() => newId('iadj_'));
    const inIds = variantIds.map(() => newId('iadj_'));
    const [{ moved }] = await tx.$queryRaw<Array<{ moved: number }>>`
      WITH ids AS (
        SELECT * FROM unnest(${variantIds}::text[], ${outIds}::text[], ${inIds}::text[]) AS t(variant_id, out_id, in_id)
      ), moved AS (
        DELETE FROM inventory_levels WHERE location_id = ${sourceId} AND variant_id = ANY(${variantIds}::text[])
        RETURNING variant_id, available
      ), landed AS (
        INSERT INTO inventory_levels (variant_id, location_id, project_id, available, updated_at)
        SELECT variant_id, ${destinationId}, ${projectId}, available, now() FROM moved
        ON CONFLICT (variant_id, location_id)
        DO UPDATE SET available = inventory_levels.available + EXCLUDED.available, updated_at = now()
        RETURNING variant_id, available
      ), outgoing AS (
        INSERT INTO inventory_adjustments (id, project_id, variant_id, location_id, reason, delta, available_after)
        SELECT ids.out_id, ${projectId}, m.variant_id, ${sourceId}, 'transfer_out', -m.available, 0
        FROM moved m JOIN ids USING (variant_id)
      ), incoming AS (
        INSERT INTO inventory_adjustments (id, project_id, variant_id, location_id, reason, delta, available_after)
        SELECT ids.in_id, ${projectId}, m.variant_id, ${destinationId}, 'transfer_in', m.available, l.available
        FROM moved m JOIN landed l USING (variant_id) JOIN ids USING (variant_id)
      )
      SELECT count(*)::int AS moved FROM moved`;
    await syncVariantTotals(tx, ctx, before);
    return moved;
  });
}
