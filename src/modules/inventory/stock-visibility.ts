import type { Variant } from '../../generated/prisma/client.js';

/** Whether a variant with `quantity` units can be sold: the `in_stock` storefronts see. */
export const inStock = (quantity: number, policy: string): boolean => quantity > 0 || policy === 'continue';

/**
 * The variant's `updated_at` after its total moved to `total` at `at`: `at` only when `in_stock` changes, else
 * unchanged, so a storefront (which sees `in_stock`, not the quantity) cannot watch each sale through the
 * variant's `updated_at` or ETag.
 */
export function updatedAtAfterStockMove(before: Variant, total: number, at: Date): Date {
  const flips = inStock(before.inventoryQuantity, before.inventoryPolicy) !== inStock(total, before.inventoryPolicy);
  return flips ? at : before.updatedAt;
}
