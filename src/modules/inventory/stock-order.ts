import type { InventoryLevel, Location } from '../../generated/prisma/client.js';

/** Units of a variant leaving stock; `label` names it in errors ("Trail Runner 2 - EU 42"). */
export interface StockDemand {
  variantId: string;
  quantity: number;
  label: string;
}

/** Units of a variant that left (or return to, or are held at) one location. */
export interface StockAllocation {
  variant_id: string;
  location_id: string;
  quantity: number;
}

export type LevelAt = InventoryLevel & { location: Pick<Location, 'id' | 'name' | 'isDefault'> };

/** Default location first, then the others by name (id breaks ties), as merchants expect orders to ship. */
export function byDeductionOrder(a: LevelAt, b: LevelAt): number {
  if (a.location.isDefault !== b.location.isDefault) return a.location.isDefault ? -1 : 1;
  return a.location.name.localeCompare(b.location.name) || a.location.id.localeCompare(b.location.id);
}

/** The demands summed per variant, in variant id order. */
export function perVariant(demands: StockDemand[]): Array<StockDemand> {
  const byId = new Map<string, StockDemand>();
  for (const demand of demands) {
    const seen = byId.get(demand.variantId);
    byId.set(demand.variantId, seen ? { ...seen, quantity: seen.quantity + demand.quantity } : { ...demand });
  }
  return [...byId.values()].sort((a, b) => a.variantId.localeCompare(b.variantId));
}
