import { describe, expect, test } from '@jest/globals';
import {
  applicableRates,
  chooseZone,
  mergeRates,
  toAvailableRate,
  totalWeight,
  type AvailableRate,
  type FlatRate,
  type ZoneCandidate,
} from '../../../src/modules/shipping/rate-selection.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 12, minute));

function zone(id: string, overrides: Partial<ZoneCandidate> = {}): ZoneCandidate {
  return { id, countries: [], isRestOfWorld: false, isActive: true, position: 0, createdAt: at(0), ...overrides };
}

function rate(id: string, overrides: Partial<FlatRate> = {}): FlatRate {
  return {
    id,
    name: id,
    description: null,
    price: 500,
    currency: 'USD',
    minOrderSubtotal: null,
    maxOrderSubtotal: null,
    minOrderWeight: null,
    maxOrderWeight: null,
    minDeliveryDays: null,
    maxDeliveryDays: null,
    isActive: true,
    position: 0,
    createdAt: at(0),
    ...overrides,
  };
}

describe('chooseZone (the first active zone listing the country, else rest of world)', () => {
  test('the first active zone by position that lists the country', () => {
    const zones = [
      zone('late', { countries: ['US'], position: 5 }),
      zone('early', { countries: ['CA', 'US'], position: 1 }),
      zone('inactive', { countries: ['US'], position: 0, isActive: false }),
      zone('other', { countries: ['FR'], position: 0 }),
    ];
    expect(chooseZone(zones, 'US')?.id).toBe('early');
    expect(chooseZone(zones, 'FR')?.id).toBe('other');
  });

  test('equal positions: the oldest zone, then the smaller id', () => {
    const zones = [
      zone('b', { countries: ['US'], createdAt: at(2) }),
      zone('a', { countries: ['US'], createdAt: at(1) }),
    ];
    expect(chooseZone(zones, 'US')?.id).toBe('a');
    const sameTime = [zone('shz_2', { countries: ['US'] }), zone('shz_1', { countries: ['US'] })];
    expect(chooseZone(sameTime, 'US')?.id).toBe('shz_1');
  });

  test('no zone lists the country: the active rest-of-world zone, even when it comes last by position', () => {
    const zones = [zone('us', { countries: ['US'] }), zone('row', { isRestOfWorld: true, position: 99 })];
    expect(chooseZone(zones, 'JP')?.id).toBe('row');
  });

  test('a country listed by a zone wins over the rest-of-world zone, whatever the positions', () => {
    const zones = [zone('row', { isRestOfWorld: true, position: 0 }), zone('us', { countries: ['US'], position: 9 })];
    expect(chooseZone(zones, 'US')?.id).toBe('us');
  });

  test('an inactive rest-of-world zone is not used; no match at all is undefined', () => {
    expect(chooseZone([zone('row', { isRestOfWorld: true, isActive: false })], 'JP')).toBeUndefined();
    expect(chooseZone([zone('us', { countries: ['US'] })], 'JP')).toBeUndefined();
    expect(chooseZone([], 'US')).toBeUndefined();
  });
});

describe('totalWeight', () => {
  test('is the sum of weight_grams × quantity, 0 without items', () => {
    expect(totalWeight(undefined)).toBe(0);
    expect(totalWeight([])).toBe(0);
    expect(
      totalWeight([
        { weight_grams: 450, quantity: 2 },
        { weight_grams: 1200, quantity: 1 },
        { weight_grams: 0, quantity: 9 },
      ]),
    ).toBe(2100);
  });
});

describe('applicableRates (currency, subtotal and weight bounds)', () => {
  const cart = { subtotal: 5000, currency: 'USD', weightGrams: 1000 };

  test('subtotal bounds are inclusive at both ends', () => {
    const rates = [
      rate('min-at', { minOrderSubtotal: 5000 }),
      rate('min-above', { minOrderSubtotal: 5001 }),
      rate('max-at', { maxOrderSubtotal: 5000 }),
      rate('max-below', { maxOrderSubtotal: 4999 }),
      rate('both-at', { minOrderSubtotal: 5000, maxOrderSubtotal: 5000 }),
    ];
    expect(
      applicableRates(rates, cart)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['both-at', 'max-at', 'min-at']);
  });

  test('weight bounds are inclusive at both ends', () => {
    const rates = [
      rate('min-at', { minOrderWeight: 1000 }),
      rate('min-above', { minOrderWeight: 1001 }),
      rate('max-at', { maxOrderWeight: 1000 }),
      rate('max-below', { maxOrderWeight: 999 }),
    ];
    expect(
      applicableRates(rates, cart)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['max-at', 'min-at']);
  });

  test('a cart without items weighs 0: a minimum weight excludes the rate, a maximum does not', () => {
    const rates = [rate('min', { minOrderWeight: 1 }), rate('max', { maxOrderWeight: 0 })];
    expect(applicableRates(rates, { ...cart, weightGrams: 0 }).map((r) => r.id)).toEqual(['max']);
  });

  test('only active rates in the requested currency, by position', () => {
    const rates = [
      rate('eur', { currency: 'EUR' }),
      rate('inactive', { isActive: false }),
      rate('second', { position: 2 }),
      rate('first', { position: 1 }),
    ];
    expect(applicableRates(rates, cart).map((r) => r.id)).toEqual(['first', 'second']);
  });
});

describe('mergeRates (price ascending, flat before carrier on ties, then name)', () => {
  const flat = (id: string, price: number, name = id): AvailableRate => toAvailableRate(rate(id, { price, name }));
  const carrier = (id: string, price: number, name = id): AvailableRate => ({
    ...flat(id, price, name),
    source: 'carrier',
  });

  test('flat and carrier rates together by price ascending', () => {
    const merged = mergeRates([flat('f900', 900), flat('f0', 0)], [carrier('c500', 500), carrier('c1500', 1500)]);
    expect(merged.map((r) => r.id)).toEqual(['f0', 'c500', 'f900', 'c1500']);
  });

  test('equal prices: flat first, then by name; otherwise the order given', () => {
    const merged = mergeRates(
      [flat('f-b', 500, 'Beta'), flat('f-a', 500, 'alpha'), flat('f-a2', 500, 'alpha')],
      [carrier('c-a', 500, 'Aardvark'), carrier('c-0', 500, 'Aardvark')],
    );
    expect(merged.map((r) => r.id)).toEqual(['f-a', 'f-a2', 'f-b', 'c-a', 'c-0']);
  });

  test('a flat rate answers with source flat and its delivery days', () => {
    expect(
      toAvailableRate(
        rate('shr_1', { name: 'Standard', description: 'Ground', minDeliveryDays: 3, maxDeliveryDays: 5, price: 990 }),
      ),
    ).toEqual({
      id: 'shr_1',
      name: 'Standard',
      description: 'Ground',
      price: 990,
      currency: 'USD',
      min_delivery_days: 3,
      max_delivery_days: 5,
      source: 'flat',
    });
  });
});
