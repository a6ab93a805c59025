import type { components } from '../../generated/openapi.js';
import type { PriceList, PriceListPrice } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type PriceListResource = Schemas['PriceList'];
export type PriceListPriceResource = Schemas['PriceListPrice'];

/** A price list row with its number of prices (Prisma `_count`). */
export type PriceListRow = PriceList & { _count: { prices: number } };

/** A price list as the API shows it. */
export function toPriceListResource(list: PriceListRow): PriceListResource {
  return {
    id: list.id,
    slug: list.slug,
    name: list.name,
    description: list.description,
    currency: list.currency,
    status: list.status as PriceListResource['status'],
    starts_at: list.startsAt?.toISOString() ?? null,
    ends_at: list.endsAt?.toISOString() ?? null,
    allows_increase: list.allowsIncrease,
    price_count: list._count.prices,
    metadata: list.metadata as Record<string, unknown>,
    created_at: list.createdAt.toISOString(),
    updated_at: list.updatedAt.toISOString(),
  };
}

/** One price of a list as the API shows it. */
export function toPriceListPriceResource(price: PriceListPrice): PriceListPriceResource {
  return {
    id: price.id,
    price_list_id: price.priceListId,
    variant_id: price.variantId,
    min_quantity: price.minQuantity,
    amount: price.amount,
    created_at: price.createdAt.toISOString(),
    updated_at: price.updatedAt.toISOString(),
  };
}
