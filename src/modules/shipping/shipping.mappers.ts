import type { components } from '../../generated/openapi.js';
import type { ShippingRate, ShippingZone } from '../../generated/prisma/client.js';
import type { FlatRate } from './rate-selection.js';

type Schemas = components['schemas'];
export type ZoneResource = Schemas['ShippingZone'];
export type RateResource = Schemas['ShippingRate'];

/** A zone row with the number of its rates (Prisma `_count`). */
export type ZoneRow = ShippingZone & { _count: { rates: number } };

const numberOrNull = (value: bigint | null) => (value === null ? null : Number(value));

/** A shipping zone as the API shows it; `rates` only when given (expand=rates, create). */
export function toZoneResource(zone: ZoneRow, rates?: ShippingRate[]): ZoneResource {
  return {
    id: zone.id,
    name: zone.name,
    countries: zone.countries,
    is_rest_of_world: zone.isRestOfWorld,
    is_active: zone.isActive,
    carrier_callback_url: zone.carrierCallbackUrl,
    position: zone.position,
    rate_count: zone._count.rates,
    ...(rates && { rates: rates.map(toRateResource) }),
    created_at: zone.createdAt.toISOString(),
    updated_at: zone.updatedAt.toISOString(),
  };
}

/** A shipping rate as the API shows it. */
export function toRateResource(rate: ShippingRate): RateResource {
  return {
    id: rate.id,
    zone_id: rate.zoneId,
    name: rate.name,
    description: rate.description,
    price: Number(rate.price),
    currency: rate.currency,
    min_order_subtotal: numberOrNull(rate.minOrderSubtotal),
    max_order_subtotal: numberOrNull(rate.maxOrderSubtotal),
    min_order_weight: rate.minOrderWeight,
    max_order_weight: rate.maxOrderWeight,
    min_delivery_days: rate.minDeliveryDays,
    max_delivery_days: rate.maxDeliveryDays,
    is_active: rate.isActive,
    position: rate.position,
    created_at: rate.createdAt.toISOString(),
    updated_at: rate.updatedAt.toISOString(),
  };
}

/** A rate row as rate selection takes it (money as numbers). */
export function toFlatRate(rate: ShippingRate): FlatRate {
  return {
    ...rate,
    price: Number(rate.price),
    minOrderSubtotal: numberOrNull(rate.minOrderSubtotal),
    maxOrderSubtotal: numberOrNull(rate.maxOrderSubtotal),
  };
}
