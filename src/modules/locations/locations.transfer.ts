import type { Database } from '../../db/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { AppError } from '../../shared/errors.js';
import { lockVariants, stockLocation, syncVariantTotals } from '../catalog/inventory.service.js';
import { requireLocationsExtension } from './locations.service.js';

/**
 * Moves every inventory level of a location to another in one transaction: destination levels created
 * or added to, source levels deleted, one adjustment each way per level, variant totals kept. Both
 * locations must be active. Returns the number of level rows moved.
 */
export async function transferInventory(db: Database, caller: KeyCaller, sourceId: string, destinationId: string): Promise<number> {
  requireLocationsExtension(caller.project);
  const projectId = caller.project.id;
  if (sourceId === destinationId) {
    throw new AppError('invalid_request', 'The destination must be another location.', { field: 'destination_location_id' });
  }
  return db.$transaction(async (tx) => {
    await stockLocation(tx, projectId, sourceId, 'id');
    await stockLocation(tx, projectId, destinationId, 'destination_location_id', 'Destination location not found.');

    const levels = await tx.inventoryLevel.findMany({ where: { locationId: sourceId }, select: { variantId: true } });
    const variantIds = levels.map((l) => l.variantId);
    await lockVariants(tx, variantIds);
    const before = await tx.variant.findMany({ where: { id: { in: variantIds } } });
    const [{ moved }] = await tx.$queryRaw<Array<{ moved: number }>>`
      WITH moved AS (
        DELETE FROM inventory_levels WHERE location_id = ${sourceId} RETURNING variant_id, available
      ), landed AS (
        INSERT INTO inventory_levels (variant_id, location_id, project_id, available, updated_at)
        SELECT variant_id, ${destinationId}, ${projectId}, available, now() FROM moved
        ON CONFLICT (variant_id, location_id)
        DO UPDATE SET available = inventory_levels.available + EXCLUDED.available, updated_at = now()
        RETURNING variant_id, available
      ), outgoing AS (
        INSERT INTO inventory_adjustments (id, project_id, variant_id, location_id, reason, delta, available_after)
        SELECT 'iadj_' || replace(gen_random_uuid()::text, '-', ''), ${projectId}, variant_id, ${sourceId}, 'transfer_out', -available, 0
        FROM moved
      ), incoming AS (
        INSERT INTO inventory_adjustments (id, project_id, variant_id, location_id, reason, delta, available_after)
        SELECT 'iadj_' || replace(gen_random_uuid()::text, '-', ''), ${projectId}, m.variant_id, ${destinationId}, 'transfer_in', m.available, l.available
        FROM moved m JOIN landed l USING (variant_id)
      )
      SELECT count(*)::int AS moved FROM moved`;
    await syncVariantTotals(tx, caller, before);
    return moved;
  });
}
