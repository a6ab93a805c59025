import { describe, expect, test } from '@jest/globals';
import { allocate, paidForUnits, percentOf, percentPerLine } from '../../../src/modules/discounts/money.js';

describe('percentOf', () => {
  test('rounds half-up to the minor unit', () => {
    expect(percentOf(1050, 10)).toBe(105);
    expect(percentOf(995, 10)).toBe(100); // 99.5 -> 100
    expect(percentOf(994, 10)).toBe(99); // 99.4 -> 99
    expect(percentOf(333, 15)).toBe(50); // 49.95 -> 50
  });
});

describe('percentPerLine', () => {
  test('takes the percentage of each line on its own, so the parts may differ from the percentage of the sum', () => {
    // 15 % of 333 = 49.95 -> 50 on each of three lines: 150, where 15 % of 999 would be 149.85 -> 150 too,
    // but 15 % of 5 = 0.75 -> 1 on three lines is 3 where 15 % of 15 is 2.25 -> 2.
    expect(percentPerLine([333, 333, 333], 15)).toEqual([50, 50, 50]);
    expect(percentPerLine([5, 5, 5], 15)).toEqual([1, 1, 1]);
  });
});

describe('allocate', () => {
  test('splits in proportion, rounded down, the leftover units to the largest lines', () => {
    // 1000 over 3 equal lines: 333 each, the leftover unit to the first of the largest.
    expect(allocate(1000, [500, 500, 500])).toEqual([334, 333, 333]);
    // 100 over 1000 / 3000 / 6000: exact.
    expect(allocate(100, [1000, 3000, 6000])).toEqual([10, 30, 60]);
    // 10 over 3 / 3 / 7: floors 2, 2, 5 = 9, the leftover unit to the largest line.
    expect(allocate(10, [3, 3, 7])).toEqual([2, 2, 6]);
    // 7 over 100 / 300 / 200: floors 1, 3, 2 = 6, the leftover to 300 (not to 200, whose remainder is larger).
    expect(allocate(7, [100, 300, 200])).toEqual([1, 4, 2]);
  });

  test('the parts add up to the amount and no line goes below 0', () => {
    for (const [amount, capacities] of [
      [999, [1, 2, 3, 997]],
      [5, [1, 1, 1, 1, 1, 1, 1]],
      [1, [0, 0, 5]],
    ] as Array<[number, number[]]>) {
      const parts = allocate(amount, capacities);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
      parts.forEach((part, i) => expect(part).toBeLessThanOrEqual(capacities[i]));
    }
  });

  test('an amount above what the lines hold takes every line to 0 and no more', () => {
    expect(allocate(5000, [1000, 2000])).toEqual([1000, 2000]);
    expect(allocate(100, [0, 0])).toEqual([0, 0]);
  });
});

describe('paidForUnits', () => {
  test('refunding unit by unit pays back exactly what the line paid, the rounding leftovers on the last units', () => {
    // 3 units paid 1000 in all: 333, 333, 334.
    expect([0, 1, 2].map((done) => paidForUnits(1000, 3, done, 1))).toEqual([333, 333, 334]);
    expect(paidForUnits(1000, 3, 0, 3)).toBe(1000);
    expect(paidForUnits(1000, 3, 1, 2)).toBe(667);
  });
});
