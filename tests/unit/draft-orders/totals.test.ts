import { describe, expect, test } from '@jest/globals';
import {
  computeTotals,
  divideHalfUp,
  lineTax,
  matchTaxRate,
  rateFraction,
  type TotalsInput,
} from '../../../src/modules/draft-orders/totals.js';

const base: TotalsInput = {
  lines: [],
  shippingCost: 0,
  discount: 0,
  manualTax: 0,
  settings: { enabled: false, inclusive: false, rates: [] },
  shippingAddress: null,
  billingAddress: null,
};

describe('rateFraction', () => {
  test.each([
    [0.19, 19n, 100n],
    [0.2, 2n, 10n],
    [0.0725, 725n, 10000n],
    [1, 1n, 1n],
    [0, 0n, 1n],
    [1e-7, 1n, 10000000n],
  ])('reads %p exactly as a fraction', (rate, numerator, denominator) => {
    expect(rateFraction(rate)).toEqual({ numerator, denominator });
  });
});

describe('divideHalfUp', () => {
  test('rounds .5 up and below .5 down', () => {
    expect(divideHalfUp(5n, 2n)).toBe(3n); // 2.5
    expect(divideHalfUp(7n, 4n)).toBe(2n); // 1.75
    expect(divideHalfUp(9n, 4n)).toBe(2n); // 2.25
    expect(divideHalfUp(0n, 3n)).toBe(0n);
  });
});

describe('lineTax', () => {
  test('exclusive: amount x rate, half-up to the minor unit (where binary floating point would round 0.5 down)', () => {
    // 200 x 0.0725 = 14.5 exactly; in floating point it is 14.499999999999998, which Math.round takes down.
    expect(Math.round(200 * 0.0725)).toBe(14);
    expect(lineTax(200, 0.0725, false)).toBe(15);
    expect(lineTax(90, 0.35, false)).toBe(32);
    expect(lineTax(1050, 0.19, false)).toBe(200);
    expect(lineTax(1049, 0.19, false)).toBe(199); // 199.31
    expect(lineTax(5, 0.1, false)).toBe(1); // 0.5
    expect(lineTax(4, 0.1, false)).toBe(0); // 0.4
  });

  test('inclusive: the tax part of the amount, amount x rate / (1 + rate), half-up', () => {
    expect(lineTax(11900, 0.19, true)).toBe(1900);
    expect(lineTax(1000, 0.19, true)).toBe(160); // 159.66
    expect(lineTax(21, 0.05, true)).toBe(1); // exactly 1.0
    expect(lineTax(63, 0.05, true)).toBe(3); // exactly 3.0
    expect(lineTax(105, 0.05, true)).toBe(5); // exactly 5.0
    expect(lineTax(1, 1, true)).toBe(1); // 0.5 rounds up
  });

  test('large amounts stay exact', () => {
    expect(lineTax(99_900_000_000_000, 0.19, false)).toBe(18_981_000_000_000);
  });
});

describe('matchTaxRate', () => {
  const rates = [
    { country: 'US', rate: 0.05 },
    { country: 'US', state: 'CA', rate: 0.0725 },
    { country: 'DE', rate: 0.19 },
  ];

  test('a rate naming the state wins over the country rate; the state compares case-insensitively', () => {
    expect(matchTaxRate(rates, { country: 'US', state: 'ca' })?.rate).toBe(0.0725);
    expect(matchTaxRate(rates, { country: 'US', state: 'NY' })?.rate).toBe(0.05);
    expect(matchTaxRate(rates, { country: 'US', state: null })?.rate).toBe(0.05);
  });

  test('no rate for the country: undefined; a state-only rate does not apply to other states', () => {
    expect(matchTaxRate(rates, { country: 'FR' })).toBeUndefined();
    expect(matchTaxRate([{ country: 'CA', state: 'QC', rate: 0.1 }], { country: 'CA', state: 'ON' })).toBeUndefined();
  });
});

describe('computeTotals', () => {
  test('tax disabled: the manual tax is used; total = subtotal + tax + shipping - discount; no tax_data', () => {
    const totals = computeTotals({
      ...base,
      lines: [
        { quantity: 2, unitPrice: 1250 },
        { quantity: 1, unitPrice: 99 },
      ],
      manualTax: 300,
      shippingCost: 500,
      discount: 100,
    });
    expect(totals).toEqual({ subtotal: 2599, tax: 300, taxData: null, taxInclusive: false, total: 3299 });
  });

  test('tax exclusive: per line half-up, summed; shipping and discount untaxed', () => {
    const totals = computeTotals({
      ...base,
      lines: [
        { quantity: 1, unitPrice: 1050 },
        { quantity: 3, unitPrice: 350 },
      ],
      shippingCost: 490,
      discount: 1000,
      manualTax: 999,
      settings: { enabled: true, inclusive: false, rates: [{ country: 'DE', rate: 0.19 }] },
      shippingAddress: { country: 'DE' },
    });
    // 1050 x 0.19 = 199.5 -> 200; 1050 x 0.19 = 199.5 -> 200 (the second line totals 1050 too)
    expect(totals.subtotal).toBe(2100);
    expect(totals.tax).toBe(400);
    expect(totals.taxData).toEqual({
      total_tax: 400,
      tax_inclusive: false,
      source: 'store_rates',
      tax_lines: [{ name: 'DE tax 19%', rate: 0.19, amount: 400 }],
    });
    expect(totals.total).toBe(2100 + 400 + 490 - 1000);
  });

  test('rounding per line differs from rounding the sum, and per line is what counts', () => {
    const settings = { enabled: true, inclusive: false, rates: [{ country: 'FR', rate: 0.1 }] };
    // three lines of 2.5 cents of tax each: 3 per line, 9 in all; rounding the sum (7.5) would give 8
    const totals = computeTotals({
      ...base,
      settings,
      shippingAddress: { country: 'FR' },
      lines: [1, 2, 3].map(() => ({ quantity: 1, unitPrice: 25 })),
    });
    expect(totals.tax).toBe(9);
  });

  test('tax inclusive: the tax is reported but not added to the total', () => {
    const totals = computeTotals({
      ...base,
      lines: [{ quantity: 1, unitPrice: 11900 }],
      shippingCost: 500,
      settings: { enabled: true, inclusive: true, rates: [{ country: 'DE', rate: 0.19 }] },
      billingAddress: { country: 'DE' },
    });
    expect(totals).toMatchObject({ subtotal: 11900, tax: 1900, taxInclusive: true, total: 12400 });
    expect(totals.taxData).toMatchObject({ tax_inclusive: true, total_tax: 1900 });
  });

  test('the shipping address decides over the billing address', () => {
    const settings = {
      enabled: true,
      inclusive: false,
      rates: [
        { country: 'DE', rate: 0.19 },
        { country: 'FR', rate: 0.2 },
      ],
    };
    const totals = computeTotals({
      ...base,
      settings,
      lines: [{ quantity: 1, unitPrice: 1000 }],
      shippingAddress: { country: 'FR' },
      billingAddress: { country: 'DE' },
    });
    expect(totals.tax).toBe(200);
  });

  test('tax enabled without an address or a matching rate: tax 0 with empty tax lines', () => {
    const settings = { enabled: true, inclusive: false, rates: [{ country: 'DE', rate: 0.19 }] };
    const none = computeTotals({ ...base, settings, lines: [{ quantity: 1, unitPrice: 1000 }], manualTax: 50 });
    expect(none).toMatchObject({ tax: 0, total: 1000, taxData: { total_tax: 0, tax_lines: [] } });
    const other = computeTotals({
      ...base,
      settings,
      lines: [{ quantity: 1, unitPrice: 1000 }],
      shippingAddress: { country: 'JP' },
    });
    expect(other.taxData!.tax_lines).toEqual([]);
  });

  test('a state rate is named after country and state', () => {
    const settings = { enabled: true, inclusive: false, rates: [{ country: 'US', state: 'CA', rate: 0.0725 }] };
    const totals = computeTotals({
      ...base,
      settings,
      lines: [{ quantity: 1, unitPrice: 10000 }],
      shippingAddress: { country: 'US', state: 'CA' },
    });
    expect(totals.taxData!.tax_lines).toEqual([{ name: 'US-CA tax 7.25%', rate: 0.0725, amount: 725 }]);
  });

  test('a discount larger than the rest gives a negative total, which the caller refuses', () => {
    expect(computeTotals({ ...base, lines: [{ quantity: 1, unitPrice: 100 }], discount: 101 }).total).toBe(-1);
  });
});
