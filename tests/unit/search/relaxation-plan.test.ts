import { describe, expect, test } from '@jest/globals';
import { parseQuery } from '../../../src/modules/search/query-parser.js';
import { headClause, planQuery, titleWords } from '../../../src/modules/search/search-plan.js';

describe('which words relaxation may leave unmatched', () => {
  test('plain words are relaxable; quoted phrases and OR groups are not; stop words are not words', () => {
    const plan = planQuery('cozy "grey hoodie" for the weekend OR holiday', [], []);
    expect(plan.words).toEqual([
      { text: 'cozy', relaxable: true },
      { text: 'grey hoodie', relaxable: false },
      { text: 'weekend OR holiday', relaxable: false },
    ]);
  });

  test('a multi-word synonym run counts as one relaxable word; exclusions are not words', () => {
    const plan = planQuery('red tee shirt -blue', [{ synonymType: 'equivalent', terms: ['tee shirt', 't-shirt'] }], []);
    expect(plan.words).toEqual([
      { text: 'red', relaxable: true },
      { text: 'tee shirt', relaxable: true },
    ]);
    expect(plan.full.exclude).toHaveLength(1);
  });
});

describe('the head noun of the query', () => {
  test('the last word before the first stop word that follows a word, else the last word', () => {
    expect(headClause(parseQuery('cozy grey hoodie for the weekend').must)).toBe(2);
    expect(headClause(parseQuery('the merino wool sweater').must)).toBe(2);
    expect(headClause(parseQuery('a').must)).toBeNull();
    const plan = planQuery('lightweight running shoes for summer trails', [], []);
    expect(plan.words[plan.head!].text).toBe('shoes');
  });
});

describe('the title the query reads as', () => {
  test('typed words in order, punctuation as separators; none with OR', () => {
    expect(planQuery('Northpeak Classic Linen T-Shirt', [], []).titleText).toBe('northpeak classic linen t shirt');
    expect(planQuery('shirt OR blouse', [], []).titleText).toBe('');
    expect(titleWords('harbor & co  linen')).toBe('harbor co linen');
  });
});
