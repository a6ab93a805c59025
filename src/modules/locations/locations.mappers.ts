import type { components } from '../../generated/openapi.js';
import type { Location } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type LocationResource = Schemas['Location'];
export type LocationWithStockResource = Schemas['LocationWithStock'];
export interface StockCounts {
  variantCount: number;
  totalUnits: number;
}

/** A location as lists and create show it (no stock counts). */
export function toLocationResource(location: Location): LocationResource {
  return {
    id: location.id,
    name: location.name,
    handle: location.handle,
    type: location.type as LocationResource['type'],
    is_default: location.isDefault,
    is_active: location.isActive,
    metadata: location.metadata as LocationResource['metadata'],
    address_line1: location.addressLine1,
    address_line2: location.addressLine2,
    city: location.city,
    state: location.state,
    postal_code: location.postalCode,
    country: location.country,
    phone: location.phone,
    email: location.email,
    created_at: location.createdAt.toISOString(),
    updated_at: location.updatedAt.toISOString(),
  };
}

/** A location with its stock counts, as get, update and set-default show it. */
export function toLocationWithStockResource(location: Location, stock: StockCounts): LocationWithStockResource {
  const { created_at, updated_at, ...fields } = toLocationResource(location);
  return { ...fields, variant_count: stock.variantCount, total_units: stock.totalUnits, created_at, updated_at };
}
