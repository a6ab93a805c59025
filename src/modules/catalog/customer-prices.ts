import type { Ctx } from '../../shared/context.js';
import {
  customerPriceKeys,
  nextPriceChangeMs,
  PRICE_LIST_TABLES,
  priceFor,
  pricingForKeys,
} from '../price-lists/index.js';
import type { ProductResource, VariantResource } from './catalog.mappers.js';

/** The signed-in storefront customer reading, or null for every other caller. */
export const pricedCustomer = (ctx: Ctx): string | null => (ctx.actor.kind === 'customer' ? ctx.actor.id : null);

/** What a page's `customer_price`s are resolved from besides the price lists (each carries the table_changed trigger). */
const RESOLVED_PRICE_TABLES = ['products', 'variants', ...PRICE_LIST_TABLES];

/** The unit prices of one unit of each variant of some products, for one set of price keys, and until when they hold. */
export interface ResolvedPrices {
  /** variant id -> its unit price, in its product's currency */
  byVariant: Map<string, number>;
  /** product id -> the lowest of its variants' unit prices (products without variants are absent) */
  lowestByProduct: Map<string, number>;
  /** When the time alone can change them: the first starts_at or ends_at of their lists still to come (ms). */
  validUntilMs: number;
}

/** Reads the products' variants (of the project) and resolves one unit of each for these price keys, now. */
async function resolvePrices(
  ctx: Ctx,
  keys: Awaited<ReturnType<typeof customerPriceKeys>>,
  productIds: readonly string[],
): Promise<ResolvedPrices> {
  const variants = await ctx.db.variant.findMany({
    where: { productId: { in: [...productIds] }, product: { projectId: ctx.project.id } },
    select: { id: true, productId: true, price: true, salePrice: true, product: { select: { currency: true } } },
  });
  const pricing = await pricingForKeys(
    ctx,
    ctx.db,
    keys,
    variants.map((variant) => variant.id),
  );
  const now = new Date();
  const byVariant = new Map<string, number>();
  const lowestByProduct = new Map<string, number>();
  for (const variant of variants) {
    const price = priceFor(pricing, variant, 1, variant.product.currency, now).unitPrice;
    byVariant.set(variant.id, price);
    const known = lowestByProduct.get(variant.productId);
    if (known === undefined || price < known) lowestByProduct.set(variant.productId, price);
  }
  return { byVariant, lowestByProduct, validUntilMs: nextPriceChangeMs(pricing, now) };
}

/**
 * The signed-in customer's unit prices of one unit of each variant of the products, now (their price lists,
 * else the sale price when set, else the price). Customers with the same price keys share one cached answer
 * per page (`caches.resolvedPrices`), so a repeated page costs two map lookups; a read outside any write. A
 * cached answer lacking one of `variantIds` (a variant another process added whose change notification has not
 * arrived yet) is resolved again without the cache.
 */
async function customerPrices(
  ctx: Ctx,
  customerId: string,
  productIds: readonly string[],
  variantIds: readonly string[] = [],
): Promise<ResolvedPrices> {
  const keys = await customerPriceKeys(ctx, ctx.db, customerId, { cached: true });
  const compute = () => resolvePrices(ctx, keys, productIds);
  if (!ctx.caches) return compute();
  // As JSON: keys are free text (a group's "vip,wholesale" is one key, not the two keys vip and wholesale).
  const keySet = JSON.stringify(keys && [keys.own, [...keys.shared].sort()]);
  const cached = (await ctx.caches.resolvedPrices.get(
    ctx.project.id,
    `${keySet}|${productIds.join(',')}`,
    RESOLVED_PRICE_TABLES,
    compute,
    (value) => Date.now() < (value as ResolvedPrices).validUntilMs,
  )) as ResolvedPrices;
  return variantIds.every((id) => cached.byVariant.has(id)) ? cached : compute();
}

/** What the page's prices are resolved for: products with their variants' ids. */
interface PricedProduct {
  id: string;
  variants: ReadonlyArray<{ id: string }>;
}

/** The signed-in customer's prices of the products' variants (see customerPrices); null for every other caller. */
export async function customerPricesOf(ctx: Ctx, products: readonly PricedProduct[]): Promise<ResolvedPrices | null> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return null;
  return customerPrices(
    ctx,
    customerId,
    products.map((product) => product.id),
    products.flatMap((product) => product.variants.map((variant) => variant.id)),
  );
}

/**
 * The product with `customer_price` on each variant (one unit, in the product's currency, now) and on the
 * product (the lowest of its variants'), from `prices`. Sets them on the given object, which must be this
 * request's own (fresh from the mappers).
 */
export function setCustomerPrices(product: ProductResource, prices: ResolvedPrices): ProductResource {
  let lowest = Infinity;
  for (const variant of product.variants) {
    // A variant deleted since the page was read keeps its own price.
    variant.customer_price = prices.byVariant.get(variant.id) ?? variant.sale_price ?? variant.price;
    lowest = Math.min(lowest, variant.customer_price);
  }
  if (product.variants.length > 0) product.customer_price = lowest;
  return product;
}

/** The products with `customer_price` for the signed-in customer of `ctx` (see setCustomerPrices); unchanged for other callers. */
export async function withCustomerPrices(ctx: Ctx, products: ProductResource[]): Promise<ProductResource[]> {
  const prices = products.length > 0 ? await customerPricesOf(ctx, products) : null;
  return prices ? products.map((product) => setCustomerPrices(product, prices)) : products;
}

/** The variant with `customer_price` for the signed-in customer of `ctx` (see withCustomerPrices); unchanged for other callers. */
export async function withCustomerVariantPrice(ctx: Ctx, variant: VariantResource): Promise<VariantResource> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return variant;
  const prices = await customerPrices(ctx, customerId, [variant.product_id], [variant.id]);
  return { ...variant, customer_price: prices.byVariant.get(variant.id) ?? variant.sale_price ?? variant.price };
}

/**
 * For the signed-in customer of `ctx`, each product's lowest `customer_price` among its variants (in the
 * product's currency, as withCustomerPrices); null for every other caller. Products without variants are absent.
 */
export async function lowestCustomerPrices(
  ctx: Ctx,
  productIds: readonly string[],
): Promise<Map<string, number> | null> {
  const customerId = pricedCustomer(ctx);
  if (!customerId) return null;
  if (productIds.length === 0) return new Map();
  return (await customerPrices(ctx, customerId, productIds)).lowestByProduct;
}
