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
});
