import type { Tx } from '../../db/client.js';
import type { Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { conflict } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { syncVariantTotals } from './inventory.service.js';
import { levelKey, lockedStock } from './reserved-units.js';
import { byDeductionOrder, perVariant, type StockAllocation, type StockDemand } from './stock-order.js';

export type { StockAllocation, StockDemand } from './stock-order.js';

async function takeFrom(
  tx: Tx,
  ctx: Ctx,
  variantId: string,
  locationId: string,
  available: number,
  take: number,
): Promise<StockAllocation> {
  const key = { variantId_locationId: { variantId, locationId } };
  await tx.inventoryLevel.upsert({
    where: key,
    create: { variantId, locationId, projectId: ctx.project.id, available: -take },
    update: { available: { decrement: take } },
  });
  await tx.inventoryAdjustment.create({
    data: {
      id: newId('iadj_'),
      projectId: ctx.project.id,
      variantId,
      locationId,
      reason: 'order',
      delta: -take,
      availableAfter: available - take,
    },
  });
  return { variant_id: variantId, location_id: locationId, quantity: take };
}

/**
 * Takes the demanded units out of stock in the caller's transaction: the variants are locked (id order),
 * every demand is checked before anything changes, then units come from the active locations, the
 * default first, then by name, never from units other drafts hold (live reservations). A variant with
 * policy `deny` whose active locations hold fewer available units than demanded is 409 conflict with the
 * variant id in `field` (nothing changes); with `continue` the rest is taken from the default location,
 * which goes negative. Adjustments (reason `order`), variant totals and
 * inventory.low events are written as for any stock change. Answers where the units came from.
 */
export async function deductStock(tx: Tx, ctx: Ctx, demands: StockDemand[]): Promise<StockAllocation[]> {
  const wanted = perVariant(demands);
  if (wanted.length === 0) return [];
  const ids = wanted.map((demand) => demand.variantId);
  // Units held for sent drafts are not sellable here (a draft's own reservation is released before its completion).
  const { variants, levels, free: freeAt } = await lockedStock(tx, ctx, ids);
  const free = (level: (typeof levels)[number]) => freeAt.get(levelKey(level.variantId, level.locationId))!;

  for (const demand of wanted) {
    const variant = variants.get(demand.variantId);
    if (!variant)
      throw conflict(
        `${demand.label} (${demand.variantId}) is no longer in the catalog. Remove its line item first.`,
        demand.variantId,
      );
    const held = levels
      .filter((level) => level.variantId === demand.variantId)
      .reduce((sum, level) => sum + free(level), 0);
    if (variant.inventoryPolicy === 'deny' && held < demand.quantity) {
      throw conflict(
        `Not enough stock of ${demand.label} (${demand.variantId}): ${held} available at active locations, ${demand.quantity} ordered.`,
        demand.variantId,
      );
    }
  }

  const allocations: StockAllocation[] = [];
  // Read only when a `continue` variant is short (rare): one round trip less on every other deduction.
  const defaultLocation = () =>
    tx.location.findFirst({ where: { projectId: ctx.project.id, isDefault: true, deletedAt: null } });
  for (const demand of wanted) {
    let remaining = demand.quantity;
    for (const level of levels.filter((l) => l.variantId === demand.variantId).sort(byDeductionOrder)) {
      const take = Math.min(free(level), remaining);
      if (take === 0) continue;
      allocations.push(await takeFrom(tx, ctx, demand.variantId, level.locationId, level.available, take));
      level.available -= take;
      remaining -= take;
    }
    // Only `continue` variants get here: sold beyond stock, the default location carries the shortfall.
    const shortfallAt = remaining > 0 ? await defaultLocation() : null;
    if (shortfallAt) {
      const level = levels.find((l) => l.variantId === demand.variantId && l.locationId === shortfallAt.id);
      allocations.push(await takeFrom(tx, ctx, demand.variantId, shortfallAt.id, level?.available ?? 0, remaining));
    }
  }
  await syncVariantTotals(tx, ctx, wanted.map((demand) => variants.get(demand.variantId)) as Variant[]);
  return allocations;
}
