import type { components } from '../../generated/openapi.js';
import type { ReservedLevel } from './inventory.service.js';

type Schemas = components['schemas'];

/** A level as a variant's level list shows it: on hand, reserved for sent drafts, and the rest available. */
export function toInventoryLevelResource(level: ReservedLevel): Schemas['InventoryLevel'] {
  return {
    location_id: level.locationId,
    on_hand: level.available,
    reserved: level.reserved,
    available: level.available - level.reserved,
    updated_at: level.updatedAt.toISOString(),
  };
}

/** A level with its variant, as setting it answers. */
export function toVariantLevelResource(level: ReservedLevel): Schemas['InventoryLevelOfVariant'] {
  return { variant_id: level.variantId, ...toInventoryLevelResource(level) };
}
