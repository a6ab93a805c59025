import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { newId } from '../../../src/shared/ids.js';

afterEach(() => {
  jest.restoreAllMocks();
});

// The times mocked below lie ahead of the real clock and rise from test to test: newId counts up within the last
// millisecond it saw, so a mocked time before it would be a clock stepping back.
describe('newId', () => {
  test('is the prefix and 26 lowercase base32 characters', () => {
    expect(newId('cus_')).toMatch(/^cus_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  test('IDs made in later milliseconds sort later', () => {
    const now = jest.spyOn(Date, 'now');
    for (const ms of [3_000_000_000_000, 3_000_000_000_002, 3_000_000_001_000, 3_100_000_000_000]) {
      now.mockReturnValue(ms);
      const earlier = newId('sevt_');
      now.mockReturnValue(ms + 1);
      // Whatever the random part, one millisecond later sorts later (the random tail of the earlier one is maximal here).
      expect(newId('sevt_') > earlier.slice(0, 15) + 'z'.repeat(16)).toBe(true);
      expect(newId('sevt_') > earlier).toBe(true);
    }
  });

  test('IDs made in one millisecond sort in the order they were made, whatever their random part', () => {
    jest.spyOn(Date, 'now').mockReturnValue(3_200_000_000_000);
    const made = Array.from({ length: 1_000 }, (_, i) => newId(i % 2 ? 'evt_' : 'ord_').slice(4));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(1_000);
  });

  test('a clock that steps back does not make an ID sort before the last one', () => {
    const now = jest.spyOn(Date, 'now');
    now.mockReturnValue(3_300_000_000_500);
    const before = newId('x_');
    now.mockReturnValue(3_300_000_000_000);
    expect(newId('x_') > before).toBe(true);
  });

  test('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('x_')));
    expect(ids.size).toBe(10_000);
  });

  test('the random tails use every character about equally, across many refills of the random bytes', () => {
    // Each ID in a millisecond of its own, so each tail is a new draw (not one counted up from the last).
    const now = jest.spyOn(Date, 'now');
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      now.mockReturnValue(3_400_000_000_000 + i);
      for (const char of newId('x_').slice(12)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    // 160,000 characters over 32: 5,000 each expected (a standard deviation of about 70).
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 5_000)).toBeLessThan(500);
  });
});
