import type { components } from '../../generated/openapi.js';

/** An entry of the rate lookup's answer. */
export type AvailableRate = components['schemas']['AvailableShippingRate'];
type Item = components['schemas']['ShippingItem'];

/** What zone matching needs of a zone. */
export interface ZoneCandidate {
  id: string;
  countries: readonly string[];
  isRestOfWorld: boolean;
  isActive: boolean;
  position: number;
  createdAt: Date;
}

/** What rate selection needs of a flat rate (money in cents, weights in grams; null bounds do not limit). */
export interface FlatRate {
  id: string;
  name: string;
  description: string | null;
  price: number;
  currency: string;
  minOrderSubtotal: number | null;
  maxOrderSubtotal: number | null;
  minOrderWeight: number | null;
  maxOrderWeight: number | null;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
  isActive: boolean;
  position: number;
  createdAt: Date;
}

/** The cart a lookup prices. */
export interface Cart {
  subtotal: number;
  currency: string;
  weightGrams: number;
}

const byPosition = (
  a: { position: number; createdAt: Date; id: string },
  b: { position: number; createdAt: Date; id: string },
) =>
  a.position - b.position || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The zone of a destination: the first active zone by position (ties: oldest first) whose countries list
 * `country`; when none does, the active rest-of-world zone; otherwise undefined.
 */
export function chooseZone<Z extends ZoneCandidate>(zones: readonly Z[], country: string): Z | undefined {
  const active = zones.filter((zone) => zone.isActive).sort(byPosition);
  return active.find((zone) => zone.countries.includes(country)) ?? active.find((zone) => zone.isRestOfWorld);
}

/** The cart's total weight: the sum of weight_grams × quantity (0 without items). */
export function totalWeight(items: readonly Item[] | undefined): number {
  return (items ?? []).reduce((sum, item) => sum + item.weight_grams * item.quantity, 0);
}

const within = (value: number, min: number | null, max: number | null) =>
  (min === null || value >= min) && (max === null || value <= max);

/**
 * The rates a cart can use: the active rates in its currency whose subtotal and weight bounds (inclusive) hold
 * the cart, by position.
 */
export function applicableRates<R extends FlatRate>(rates: readonly R[], cart: Cart): R[] {
  return rates
    .filter((rate) => rate.isActive && rate.currency === cart.currency)
    .filter((rate) => within(cart.subtotal, rate.minOrderSubtotal, rate.maxOrderSubtotal))
    .filter((rate) => within(cart.weightGrams, rate.minOrderWeight, rate.maxOrderWeight))
    .sort(byPosition);
}

/** A flat rate as the lookup answers it. */
export function toAvailableRate(rate: FlatRate): AvailableRate {
  return {
    id: rate.id,
    name: rate.name,
    description: rate.description,
    price: rate.price,
    currency: rate.currency,
    min_delivery_days: rate.minDeliveryDays,
    max_delivery_days: rate.maxDeliveryDays,
    source: 'flat',
  };
}

const SOURCE_ORDER = { flat: 0, carrier: 1 } as const;

/**
 * The order of a lookup's answer: flat and carrier rates together by price ascending; equal prices put
 * flat rates first, then order by name; rates equal in all three keep the order they came in (flat by
 * position, carrier as answered).
 */
export function mergeRates(flat: readonly AvailableRate[], carrier: readonly AvailableRate[]): AvailableRate[] {
  return [...flat, ...carrier].sort(
    (a, b) =>
      a.price - b.price || SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source] || a.name.localeCompare(b.name, 'en'),
  );
}
