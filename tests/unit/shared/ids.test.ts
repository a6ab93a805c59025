import { describe, expect, test } from '@jest/globals';
import { newId } from '../../../src/shared/ids.js';

describe('newId', () => {
  test('is the prefix and 26 lowercase base32 characters', () => {
    expect(newId('cus_')).toMatch(/^cus_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  test('IDs made in later milliseconds sort later', async () => {
    const first = newId('sevt_');
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(newId('sevt_') > first).toBe(true);
  });

  test('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('x_')));
    expect(ids.size).toBe(10_000);
  });
});
