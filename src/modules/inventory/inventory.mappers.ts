import type { components } from '../../generated/openapi.js';
import type { InventoryLevel } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];

/** A level as a variant's level list shows it. */
export function toInventoryLevelResource(level: InventoryLevel): Schemas['InventoryLevel'] {
  return { location_id: level.locationId, available: level.available, updated_at: level.updatedAt.toISOString() };
}

/** A level with its variant, as setting it answers. */
export function toVariantLevelResource(level: InventoryLevel): Schemas['InventoryLevelOfVariant'] {
  return { variant_id: level.variantId, ...toInventoryLevelResource(level) };
}
