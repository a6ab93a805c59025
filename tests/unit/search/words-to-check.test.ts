import { describe, expect, test } from '@jest/globals';
import { wordsToCheck } from '../../../src/modules/search/search-plan.js';

describe('wordsToCheck', () => {
  test('a word over 255 characters gets no typo correction (PostgreSQL levenshtein refuses it; found by the contract fuzz)', () => {
    const long = 'x'.repeat(256);
    expect(wordsToCheck(`shirt ${long}`)).not.toContain(long);
    expect(wordsToCheck(`shirt ${long}`)).toContain('shirt');
    expect(wordsToCheck('y'.repeat(255))).toEqual(['y'.repeat(255)]);
  });
});
