import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { newId } from '../../../src/shared/ids.js';

afterEach(() => {
  jest.restoreAllMocks();
});

describe('newId', () => {
  test('is the prefix and 26 lowercase base32 characters', () => {
    expect(newId('cus_')).toMatch(/^cus_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  test('IDs made in later milliseconds sort later', () => {
    const now = jest.spyOn(Date, 'now');
    for (const ms of [1_700_000_000_000, 1_700_000_000_001, 1_700_000_001_000, 1_800_000_000_000]) {
      now.mockReturnValue(ms);
      const earlier = newId('sevt_');
      now.mockReturnValue(ms + 1);
      // Whatever the random part, one millisecond later sorts later (the random tail of the earlier one is maximal here).
      expect(newId('sevt_') > earlier.slice(0, 15) + 'z'.repeat(16)).toBe(true);
      expect(newId('sevt_') > earlier).toBe(true);
    }
  });

  test('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('x_')));
    expect(ids.size).toBe(10_000);
  });

  test('the random tails use every character about equally, across many refills of the random bytes', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++)
      for (const char of newId('x_').slice(12)) counts.set(char, (counts.get(char) ?? 0) + 1);
    // 160,000 characters over 32: 5,000 each expected (a standard deviation of about 70).
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 5_000)).toBeLessThan(500);
  });
});
