import type { Ctx } from '../../shared/context.js';
import { customerPricing, priceFor } from '../price-lists/index.js';
import type { ProductResource } from './catalog.mappers.js';

/** The signed-in storefront customer reading, or null for every other caller. */
export const pricedCustomer = (ctx: Ctx): string | null => (ctx.actor.kind === 'customer' ? ctx.actor.id : null);

/**
 * The products with `customer_price` on each variant (one unit, in the product's currency, now) and on the
 * product (the lowest of its variants'), for the signed-in customer of `ctx`; unchanged for other callers.
 * One read of the customer's lists for the whole page (its price keys cached per process, see customerPricing).
 */
export async function withCustomerPrices(ctx: Ctx, products: ProductResource[]): Promise<ProductResource[]> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return products;
  const variantIds = products.flatMap((product) => product.variants.map((variant) => variant.id));
  // A read outside any write: the customer's price keys may come from the process cache.
  const pricing = await customerPricing(ctx, ctx.db, customerId, variantIds, { cached: true });
  const now = new Date();
  return products.map((product) => {
    const variants = product.variants.map((variant) => ({
      ...variant,
      customer_price: priceFor(
        pricing,
        { id: variant.id, price: variant.price, salePrice: variant.sale_price },
        1,
        product.currency,
        now,
      ).unitPrice,
    }));
    const lowest = Math.min(...variants.map((variant) => variant.customer_price));
    return { ...product, ...(variants.length > 0 && { customer_price: lowest }), variants };
  });
}
