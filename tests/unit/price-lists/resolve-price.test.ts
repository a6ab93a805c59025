import { describe, expect, test } from '@jest/globals';
import {
  listIsLive,
  resolvePrice,
  type CandidateList,
  type PriceQuestion,
} from '../../../src/modules/price-lists/resolve-price.js';

const NOW = new Date('2027-03-01T12:00:00Z');

const list = (slug: string, tiers: CandidateList['tiers'], over: Partial<CandidateList> = {}): CandidateList => ({
  id: `pl_${slug}`,
  slug,
  currency: 'USD',
  status: 'active',
  startsAt: null,
  endsAt: null,
  allowsIncrease: false,
  tiers,
  ...over,
});

const ask = (over: Partial<PriceQuestion> = {}): PriceQuestion => ({
  basePrice: 2500,
  quantity: 1,
  currency: 'USD',
  now: NOW,
  ...over,
});

describe('resolvePrice', () => {
  test('without lists the price is the base price and no list is named', () => {
    expect(resolvePrice(ask())).toEqual({ unitPrice: 2500, basePrice: 2500, priceListId: null });
  });

  test("the customer's own list wins over a cheaper group or company list", () => {
    const own = list('wholesale', [{ minQuantity: 1, amount: 2200 }]);
    const group = list('vip', [{ minQuantity: 1, amount: 1800 }]);
    expect(resolvePrice(ask({ customerList: own, sharedLists: [group] }))).toEqual({
      unitPrice: 2200,
      basePrice: 2500,
      priceListId: 'pl_wholesale',
    });
  });

  test("without a price in the customer's own list, the lowest shared list price applies", () => {
    const own = list('wholesale', []);
    const shared = [
      list('vip', [{ minQuantity: 1, amount: 2100 }]),
      list('acme', [{ minQuantity: 1, amount: 1900 }]),
      list('trade', [{ minQuantity: 1, amount: 2000 }]),
    ];
    expect(resolvePrice(ask({ customerList: own, sharedLists: shared })).priceListId).toBe('pl_acme');
  });

  test('equal shared prices go to the list with the smallest slug, whatever the order they come in', () => {
    const a = list('alpha', [{ minQuantity: 1, amount: 2000 }]);
    const b = list('beta', [{ minQuantity: 1, amount: 2000 }]);
    expect(resolvePrice(ask({ sharedLists: [b, a] })).priceListId).toBe('pl_alpha');
    expect(resolvePrice(ask({ sharedLists: [a, b] })).priceListId).toBe('pl_alpha');
  });

  test('quantity tiers: the highest min_quantity not above the quantity wins', () => {
    const tiered = list('wholesale', [
      { minQuantity: 50, amount: 1500 },
      { minQuantity: 1, amount: 2200 },
      { minQuantity: 10, amount: 1900 },
    ]);
    const at = (quantity: number) => resolvePrice(ask({ quantity, customerList: tiered })).unitPrice;
    expect([at(1), at(9), at(10), at(49), at(50), at(999)]).toEqual([2200, 2200, 1900, 1900, 1500, 1500]);
  });

  test('a list whose lowest tier starts above the quantity does not apply', () => {
    const bulkOnly = list('bulk', [{ minQuantity: 10, amount: 1900 }]);
    expect(resolvePrice(ask({ quantity: 9, customerList: bulkOnly }))).toEqual({
      unitPrice: 2500,
      basePrice: 2500,
      priceListId: null,
    });
    expect(resolvePrice(ask({ quantity: 10, customerList: bulkOnly })).unitPrice).toBe(1900);
  });

  test('a draft list, a list in another currency and a list outside its window do not apply', () => {
    const tiers = [{ minQuantity: 1, amount: 2000 }];
    const cases = [
      list('draft', tiers, { status: 'draft' }),
      list('euro', tiers, { currency: 'EUR' }),
      list('later', tiers, { startsAt: new Date('2027-03-02T00:00:00Z') }),
      list('over', tiers, { endsAt: NOW }),
    ];
    for (const candidate of cases) {
      expect(resolvePrice(ask({ customerList: candidate, sharedLists: [candidate] })).priceListId).toBeNull();
    }
  });

  test('the window includes starts_at and excludes ends_at', () => {
    const tiers = [{ minQuantity: 1, amount: 2000 }];
    expect(listIsLive(list('a', tiers, { startsAt: NOW }), 'USD', NOW)).toBe(true);
    expect(listIsLive(list('a', tiers, { endsAt: new Date(NOW.getTime() + 1) }), 'USD', NOW)).toBe(true);
    expect(listIsLive(list('a', tiers, { endsAt: NOW }), 'USD', NOW)).toBe(false);
  });

  test("a price above the variant's own price is skipped unless the list allows increases", () => {
    const higher = [{ minQuantity: 1, amount: 3000 }];
    expect(resolvePrice(ask({ customerList: list('surcharge', higher) })).unitPrice).toBe(2500);
    expect(
      resolvePrice(
        ask({
          customerList: list('surcharge', higher),
          sharedLists: [list('vip', [{ minQuantity: 1, amount: 2400 }])],
        }),
      ),
    ).toEqual({ unitPrice: 2400, basePrice: 2500, priceListId: 'pl_vip' });
    expect(resolvePrice(ask({ customerList: list('surcharge', higher, { allowsIncrease: true }) }))).toEqual({
      unitPrice: 3000,
      basePrice: 2500,
      priceListId: 'pl_surcharge',
    });
  });

  test('a price equal to the base price still applies and names its list', () => {
    expect(resolvePrice(ask({ customerList: list('same', [{ minQuantity: 1, amount: 2500 }]) })).priceListId).toBe(
      'pl_same',
    );
  });
});
