import type { Ctx } from '../../shared/context.js';
import { customerPricing, priceFor } from '../price-lists/index.js';
import type { ProductResource, VariantResource } from './catalog.mappers.js';

/** The signed-in storefront customer reading, or null for every other caller. */
export const pricedCustomer = (ctx: Ctx): string | null => (ctx.actor.kind === 'customer' ? ctx.actor.id : null);

/** A variant as pricing needs it: its own prices, in its product's currency. */
interface PricedVariantRow {
  id: string;
  price: number;
  salePrice: number | null;
  currency: string;
}

/**
 * The customer's unit price of one unit of each variant, now, in its product's currency (their price lists,
 * else the sale price when set, else the price). One read of the customer's lists for all of them, through
 * the process caches (a read outside any write).
 */
async function customerUnitPrices(
  ctx: Ctx,
  customerId: string,
  variants: readonly PricedVariantRow[],
): Promise<Map<string, number>> {
  if (variants.length === 0) return new Map();
  const pricing = await customerPricing(
    ctx,
    ctx.db,
    customerId,
    variants.map((variant) => variant.id),
    { cached: true },
  );
  const now = new Date();
  return new Map(
    variants.map((variant) => [variant.id, priceFor(pricing, variant, 1, variant.currency, now).unitPrice]),
  );
}

/**
 * The products with `customer_price` on each variant (one unit, in the product's currency, now) and on the
 * product (the lowest of its variants'), for the signed-in customer of `ctx`; unchanged for other callers.
 * Sets the prices on the given objects, which must be this request's own (fresh from the mappers).
 */
export async function withCustomerPrices(ctx: Ctx, products: ProductResource[]): Promise<ProductResource[]> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return products;
  const prices = await customerUnitPrices(
    ctx,
    customerId,
    products.flatMap((product) =>
      product.variants.map((variant) => ({
        id: variant.id,
        price: variant.price,
        salePrice: variant.sale_price,
        currency: product.currency,
      })),
    ),
  );
  for (const product of products) {
    let lowest = Infinity;
    for (const variant of product.variants) {
      variant.customer_price = prices.get(variant.id)!;
      lowest = Math.min(lowest, variant.customer_price);
    }
    if (product.variants.length > 0) product.customer_price = lowest;
  }
  return products;
}

/** The variant with `customer_price` for the signed-in customer of `ctx` (see withCustomerPrices); unchanged for other callers. */
export async function withCustomerVariantPrice(ctx: Ctx, variant: VariantResource): Promise<VariantResource> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return variant;
  const product = await ctx.db.product.findFirstOrThrow({
    where: { id: variant.product_id, projectId: ctx.project.id },
    select: { currency: true },
  });
  const prices = await customerUnitPrices(ctx, customerId, [
    { id: variant.id, price: variant.price, salePrice: variant.sale_price, currency: product.currency },
  ]);
  return { ...variant, customer_price: prices.get(variant.id)! };
}

/** A variant's own prices with its product, as lowestCustomerPrices reads them. */
export interface ProductVariantPrice extends PricedVariantRow {
  productId: string;
}

/**
 * For the signed-in customer of `ctx`, each product's lowest `customer_price` among the given variants (in
 * the product's currency, as withCustomerPrices); null for every other caller. Products without variants are absent.
 */
export async function lowestCustomerPrices(
  ctx: Ctx,
  variants: readonly ProductVariantPrice[],
): Promise<Map<string, number> | null> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return null;
  const prices = await customerUnitPrices(ctx, customerId, variants);
  const lowest = new Map<string, number>();
  for (const variant of variants) {
    const price = prices.get(variant.id)!;
    const known = lowest.get(variant.productId);
    if (known === undefined || price < known) lowest.set(variant.productId, price);
  }
  return lowest;
}
