import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { recordEvent } from '../store-events/index.js';
import { byDeductionOrder, perVariant, type StockAllocation, type StockDemand } from './stock-order.js';
import { levelKey, lockedStock } from './reserved-units.js';

/** Why a draft's reservation ends without being consumed (the event's summary says it). */
export type ReleaseReason = 'deleted' | 'items_changed' | 'expired' | 'resent';

/** Who holds reserved units: a sent draft order, or a checkout whose payment waits for another step. */
export type StockHolder = { draftOrderId: string; checkoutId?: never } | { checkoutId: string; draftOrderId?: never };

/**
 * Reserves the demanded units for a draft order until `expiresAt`, in the caller's transaction (see holdStock), and
 * records inventory.reserved. Answers where the units are held.
 */
export async function reserveStock(
  tx: Tx,
  ctx: Ctx,
  draft: { id: string; draftNumber: number },
  demands: StockDemand[],
  expiresAt: Date,
): Promise<StockAllocation[]> {
  const held = await holdStock(tx, ctx, { draftOrderId: draft.id }, demands, expiresAt, 'on the draft order');
  if (held.length === 0) return held;
  await recordEvent(tx, ctx, {
    type: 'inventory.reserved',
    resourceType: 'draft_order',
    resourceId: draft.id,
    summary: `Units of draft order #${draft.draftNumber} reserved until ${expiresAt.toISOString()}`,
    payload: { draft_order_id: draft.id, expires_at: expiresAt.toISOString(), reservations: held },
  });
  return held;
}

/**
 * Holds the demanded units for `holder` until `expiresAt`, in the caller's transaction: the variants are locked
 * (id order, as deductions lock them), so reservations and deductions of one variant queue. Units come from what is
 * available (on hand minus live reservations) at active locations, the default first, then by name. A `deny`
 * variant with fewer available units than demanded is 409 `shortCode` (conflict unless given) with the variant id
 * in `field` and nothing reserved; a `continue` variant's shortfall is reserved at the default location. Answers
 * where the units are held.
 */
export async function holdStock(
  tx: Tx,
  ctx: Ctx,
  holder: StockHolder,
  demands: StockDemand[],
  expiresAt: Date,
  demandedWhere: string,
  shortCode: 'conflict' | 'out_of_stock' = 'conflict',
): Promise<StockAllocation[]> {
  const wanted = perVariant(demands);
  if (wanted.length === 0) return [];
  const ids = wanted.map((demand) => demand.variantId);
  const { variants, levels, free } = await lockedStock(tx, ctx, ids);
  const short = (message: string, field: string) => new AppError(shortCode, message, { field });
  for (const demand of wanted) {
    const variant = variants.get(demand.variantId);
    if (!variant) {
      throw short(
        `${demand.label} (${demand.variantId}) is no longer in the catalog. Remove its line item first.`,
        demand.variantId,
      );
    }
    const available = levels
      .filter((level) => level.variantId === demand.variantId)
      .reduce((sum, level) => sum + free.get(levelKey(level.variantId, level.locationId))!, 0);
    if (variant.inventoryPolicy === 'deny' && available < demand.quantity) {
      throw short(
        `Not enough stock of ${demand.label} (${demand.variantId}) to reserve: ${available} available at active locations, ${demand.quantity} ${demandedWhere}.`,
        demand.variantId,
      );
    }
  }
  const defaultLocation = await tx.location.findFirst({
    where: { projectId: ctx.project.id, isDefault: true, deletedAt: null },
  });
  const held: StockAllocation[] = [];
  for (const demand of wanted) {
    let remaining = demand.quantity;
    for (const level of levels.filter((l) => l.variantId === demand.variantId).sort(byDeductionOrder)) {
      const take = Math.min(free.get(levelKey(level.variantId, level.locationId))!, remaining);
      if (take === 0) continue;
      held.push({ variant_id: demand.variantId, location_id: level.locationId, quantity: take });
      remaining -= take;
    }
    // Only `continue` variants get here: promised beyond stock, the default location carries the shortfall.
    if (remaining > 0 && defaultLocation) {
      held.push({ variant_id: demand.variantId, location_id: defaultLocation.id, quantity: remaining });
    }
  }
  await tx.inventoryReservation.createMany({
    data: held.map((unit) => ({
      id: newId('ires_'),
      projectId: ctx.project.id,
      draftOrderId: holder.draftOrderId ?? null,
      checkoutId: holder.checkoutId ?? null,
      variantId: unit.variant_id,
      locationId: unit.location_id,
      quantity: unit.quantity,
      expiresAt,
    })),
  });
  return held;
}

/** Ends every reservation of a checkout (expired or not) in the caller's transaction; answers how many units they held. */
export async function releaseCheckoutHold(tx: Tx, checkoutId: string): Promise<number> {
  const released = await tx.$queryRaw<Array<{ quantity: number }>>`
    DELETE FROM inventory_reservations WHERE checkout_id = ${checkoutId} RETURNING quantity`;
  return released.reduce((sum, row) => sum + row.quantity, 0);
}

/**
 * Ends a draft order's reservations in the caller's transaction (with `expiredOnly`, only those past
 * `expires_at`, as the expiry job does, so a later re-send's stay): the units are available again.
 * Records inventory.released with the reason unless the reservation is consumed by completion (`reason`
 * undefined). Answers how many units were released.
 */
export async function releaseReservations(
  tx: Tx,
  ctx: Ctx,
  draft: { id: string; draftNumber: number },
  reason: ReleaseReason | undefined,
  expiredOnly = false,
): Promise<number> {
  const released = await tx.$queryRaw<Array<{ variant_id: string; location_id: string; quantity: number }>>`
    DELETE FROM inventory_reservations
    WHERE draft_order_id = ${draft.id} AND (${!expiredOnly} OR expires_at <= now())
    RETURNING variant_id, location_id, quantity`;
  const units = released.reduce((sum, row) => sum + row.quantity, 0);
  if (units > 0 && reason) {
    await recordEvent(tx, ctx, {
      type: 'inventory.released',
      resourceType: 'draft_order',
      resourceId: draft.id,
      summary: `Units of draft order #${draft.draftNumber} released (${reason.replace('_', ' ')})`,
      payload: {
        draft_order_id: draft.id,
        reason,
        reservations: released.map((row) => ({
          variant_id: row.variant_id,
          location_id: row.location_id,
          quantity: row.quantity,
        })),
      },
    });
  }
  return units;
}
