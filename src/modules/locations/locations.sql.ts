import type { Tx } from '../../db/client.js';

/** The locations area's hand-written statement (tagged raw SQL, values bound): a transfer of levels in one statement. */

/**
 * Moves every level of the variants from `sourceId` to `destinationId` (added to a level there, else created), with
 * one adjustment out and one in per level (ids `outIds[i]` and `inIds[i]` for `variantIds[i]`), and the units drafts
 * and checkouts hold there along with them (still held, now at the destination); returns how many levels moved. The
 * caller holds the variants' locks.
 */
export async function moveLevels(
  tx: Tx,
  move: { projectId: string; sourceId: string; destinationId: string },
  variantIds: string[],
  adjustmentIds: { outIds: string[]; inIds: string[] },
): Promise<number> {
  const { projectId, sourceId, destinationId } = move;
  const { outIds, inIds } = adjustmentIds;
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
    ), held AS (
      UPDATE inventory_reservations SET location_id = ${destinationId}
      WHERE project_id = ${projectId} AND location_id = ${sourceId} AND variant_id = ANY(${variantIds}::text[])
    )
    SELECT count(*)::int AS moved FROM moved`;
  return moved;
}
