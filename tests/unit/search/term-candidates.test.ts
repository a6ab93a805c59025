import { describe, expect, test } from '@jest/globals';
import type { Vocabulary } from '../../../src/modules/search/search-vocabulary.js';
import { termCandidates } from '../../../src/modules/search/suggest-index.reads.js';
import { compareCodePoints, trigramsOf } from '../../../src/modules/search/suggest-index.text.js';

/** A vocabulary (what termCandidates reads), as search-vocabulary.ts builds it. */
function vocabulary(entries: Array<[string, number]>): Vocabulary {
  const sorted = [...entries].sort((a, b) => compareCodePoints(a[0], b[0]));
  const lists = new Map<string, number[]>();
  sorted.forEach(([term], i) => {
    for (const gram of trigramsOf(term)) lists.set(gram, [...(lists.get(gram) ?? []), i]);
  });
  return {
    terms: sorted.map(([term]) => term),
    termDocCounts: Int32Array.from(sorted, ([, count]) => count),
    termTrigramCounts: Int32Array.from(sorted, ([term]) => trigramsOf(term).length),
    termLengths: Int32Array.from(sorted, ([term]) => [...term].length),
    trigramTerms: new Map([...lists].map(([gram, list]) => [gram, Int32Array.from(list)])),
  };
}

describe('termCandidates', () => {
  test("finds a misspelling's vocabulary terms, and answers a word asked again from what it kept", () => {
    const catalog = vocabulary([
      ['jacket', 40],
      ['jackets', 3],
      ['socket', 7],
      ['lamp', 12],
    ]);
    const first = termCandidates(catalog, 'jakcet');
    expect(first.map((c) => c.term)).toContain('jacket');
    expect(first.map((c) => c.term)).not.toContain('lamp');
    expect(termCandidates(catalog, 'jakcet')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  test('keeps candidates per vocabulary: a rebuilt catalog answers from its own terms', () => {
    const before = vocabulary([['jacket', 40]]);
    const after = vocabulary([['jumper', 9]]);
    expect(termCandidates(before, 'jakcet').map((c) => c.term)).toEqual(['jacket']);
    expect(termCandidates(after, 'jakcet')).toEqual([]);
    expect(termCandidates(after, 'jumpr').map((c) => c.term)).toEqual(['jumper']);
  });
});
