import { describe, expect, test } from '@jest/globals';
import { crossedThresholds, leaseBlock, secondsUntil, windowsAt } from '../../../src/modules/usage/windows.js';

describe('windowsAt', () => {
  test('the minute and the calendar month (UTC) of an instant, with their ends', () => {
    const w = windowsAt(new Date('2026-12-31T23:59:30.500Z'));
    expect(w.minuteStart.toISOString()).toBe('2026-12-31T23:59:00.000Z');
    expect(w.minuteEnd.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(w.monthStart.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(w.monthEnd.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(w.period).toBe('2026-12');
  });

  test('secondsUntil rounds up and is at least 1', () => {
    expect(secondsUntil(new Date('2026-11-22T10:00:17.200Z'), new Date('2026-11-22T10:01:00.000Z'))).toBe(43);
    expect(secondsUntil(new Date('2026-11-22T10:01:00.000Z'), new Date('2026-11-22T10:01:00.000Z'))).toBe(1);
  });
});

describe('leaseBlock', () => {
  test('a tenth of what is left, capped at 1 % of the limit, at least 1', () => {
    expect(leaseBlock(600, 0)).toBe(6);
    expect(leaseBlock(1_000_000, 0)).toBe(10_000);
    expect(leaseBlock(1_000_000, 990_000)).toBe(1_000);
    expect(leaseBlock(100, 0)).toBe(1);
    expect(leaseBlock(5, 5)).toBe(1);
  });
});

describe('crossedThresholds', () => {
  test('each of 80, 90 and 100 % is crossed by the lease that reaches it, once', () => {
    expect(crossedThresholds(10, 7, 8)).toEqual([80]);
    expect(crossedThresholds(10, 8, 9)).toEqual([90]);
    expect(crossedThresholds(10, 9, 10)).toEqual([100]);
    expect(crossedThresholds(10, 10, 10)).toEqual([]);
    expect(crossedThresholds(1000, 0, 1000)).toEqual([80, 90, 100]);
    expect(crossedThresholds(1000, 801, 899)).toEqual([]);
  });
});
