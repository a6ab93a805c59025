import { describe, expect, test } from '@jest/globals';
import {
  compareCodePoints,
  inPrefixRange,
  levenshteinWithin,
  lowerBound,
  trigramSimilarity,
  trigramsOf,
} from '../../../src/modules/search/suggest-index.text.js';

describe('text as PostgreSQL compares it', () => {
  test('code point order is UTF-8 byte order: characters above U+FFFF sort after every other', () => {
    const words = ['😀', 'a', 'Z', '', 'é', '\uffef', 'ab', 'b'];
    const bytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareCodePoints)).toEqual(bytes);
    expect(lowerBound(bytes, 'ab')).toBe(bytes.indexOf('ab'));
    expect(lowerBound(bytes, 'zz')).toBe(bytes.indexOf('é'));
  });

  test('the prefix range holds what starts with the prefix and nothing else', () => {
    const inside = ['walnut', 'wal', 'wal😀', 'wal\u{10FFFE}zz', 'wal\uffff'];
    // The range's upper end, prefix || U+10FFFF, is outside it (and what follows it); what sorts below it is inside.
    const outside = ['wak', 'wam', 'wa', '', 'wal\u{10FFFF}', 'wal\u{10FFFF}x'];
    for (const text of inside) expect([text, inPrefixRange(text, 'wal')]).toEqual([text, true]);
    for (const text of outside) expect([text, inPrefixRange(text, 'wal')]).toEqual([text, false]);
    expect(inPrefixRange('anything', '')).toBe(true);
  });

  test("pg_trgm's trigrams and similarity: two spaces before the word, one after, distinct; a float4 ratio", () => {
    expect(trigramsOf('jakce')).toEqual(['  j', ' ja', 'jak', 'akc', 'kce', 'ce ']);
    expect(trigramsOf('aaa')).toEqual(['  a', ' aa', 'aaa', 'aa ']);
    expect(trigramSimilarity(3, 10, 13)).toBe(Math.fround(0.15));
  });

  test('levenshtein within a bound: insertions, deletions and substitutions cost 1, a swap 2', () => {
    expect(levenshteinWithin('jacket', 'jakcet', 1)).toBe(false);
    expect(levenshteinWithin('jacket', 'jakcet', 2)).toBe(true);
    expect(levenshteinWithin('lamp', 'lamps', 1)).toBe(true);
    expect(levenshteinWithin('lamp', 'lump', 0)).toBe(false);
    expect(levenshteinWithin('кофе', 'кафе', 1)).toBe(true);
  });
});
