import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { lockRows } from '../../shared/write.js';

/** The key of a level in the maps below. */
export const levelKey = (variantId: string, locationId: string) => `${variantId} ${locationId}`;

/**
 * Units reserved by live reservations (not past `expires_at`) per level of the variants ("variant location" ->
 * units). Counted at the database's clock, so every process agrees on what has expired.
 */
export async function reservedUnits(tx: Tx | Ctx['db'], variantIds: string[]): Promise<Map<string, number>> {
  if (variantIds.length === 0) return new Map();
  const rows = await tx.$queryRaw<Array<{ variant_id: string; location_id: string; units: number }>>`
    SELECT variant_id, location_id, SUM(quantity)::int AS units FROM inventory_reservations
    WHERE variant_id = ANY(${variantIds}) AND expires_at > now()
    GROUP BY variant_id, location_id`;
  return new Map(rows.map((row) => [levelKey(row.variant_id, row.location_id), row.units]));
}

/** Live reserved units of one level. */
export const reservedAt = (reserved: Map<string, number>, variantId: string, locationId: string) =>
  reserved.get(levelKey(variantId, locationId)) ?? 0;

/**
 * The stock a reservation or a deduction decides from, in the caller's transaction: the variants locked (id
 * order), the live ones of the project by id, their levels at active locations, and each level's free units
 * (available minus live reservations, never below 0) by `levelKey`.
 */
export async function lockedStock(tx: Tx, ctx: Ctx, variantIds: string[]) {
  await lockRows(tx, 'variants', { projectId: ctx.project.id, ids: variantIds });
  const variants = new Map(
    (
      await tx.variant.findMany({
        where: { id: { in: variantIds }, projectId: ctx.project.id, product: { deletedAt: null } },
      })
    ).map((v) => [v.id, v]),
  );
  const levels = await tx.inventoryLevel.findMany({
    where: { variantId: { in: variantIds }, location: { isActive: true, deletedAt: null } },
    include: { location: { select: { id: true, name: true, isDefault: true } } },
  });
  const reserved = await reservedUnits(tx, variantIds);
  const free = new Map(
    levels.map((level) => [
      levelKey(level.variantId, level.locationId),
      Math.max(level.available - reservedAt(reserved, level.variantId, level.locationId), 0),
    ]),
  );
  return { variants, levels, free };
}
