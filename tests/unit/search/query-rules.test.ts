import { describe, expect, test } from '@jest/globals';
import { placePins, planRules, ruleMatches, type ActiveRule } from '../../../src/modules/search/merchandising-rules.js';
import { normalizeQuery, parseQuery } from '../../../src/modules/search/query-parser.js';
import { planQuery } from '../../../src/modules/search/search-plan.js';
import { expandSynonyms, synonymMap } from '../../../src/modules/search/synonyms-expand.js';
import { chooseCorrections, damerauDistance, editBudget, isCorrectable } from '../../../src/modules/search/typo.js';

describe('parseQuery', () => {
  test('words, phrases, exclusions, OR, prefix on the last word', () => {
    expect(parseQuery('"Linen Shirt" -blue')).toEqual({
      must: [[{ kind: 'phrase', text: 'linen shirt' }]],
      exclude: [{ kind: 'word', text: 'blue', prefix: false }],
    });
    expect(parseQuery('red OR "dark blue" shirt')).toEqual({
      must: [
        [
          { kind: 'word', text: 'red', prefix: false },
          { kind: 'phrase', text: 'dark blue' },
        ],
        [{ kind: 'word', text: 'shirt', prefix: true }],
      ],
      exclude: [],
    });
    expect(parseQuery('hood ').must[0][0]).toMatchObject({ prefix: false });
    expect(parseQuery('shirt -"v neck"').exclude).toEqual([{ kind: 'phrase', text: 'v neck' }]);
    expect(parseQuery('red or blue').must).toHaveLength(3); // lowercase or is a word
  });

  test('malformed input degrades: unbalanced quote, lone -, only exclusions, punctuation, dangling OR', () => {
    expect(parseQuery('"linen shirt').must.map((c) => c[0].text)).toEqual(['linen', 'shirt']);
    expect(parseQuery('linen - shirt').exclude).toEqual([]);
    expect(parseQuery('-blue -red')).toEqual({
      must: [[{ kind: 'word', text: 'blue', prefix: false }], [{ kind: 'word', text: 'red', prefix: false }]],
      exclude: [],
    });
    expect(parseQuery('!!! ""')).toEqual({ must: [], exclude: [] });
    expect(parseQuery('OR shirt OR').must).toEqual([[{ kind: 'word', text: 'shirt', prefix: false }]]);
  });

  test('case and accents are ignored', () => {
    expect(normalizeQuery('  Café   "CRÈME" Øl ')).toBe('cafe creme ol');
  });
});

describe('typo rules', () => {
  test('budget: 1-3 none, 4-7 one, 8+ two; numbers and codes are not corrected', () => {
    expect([editBudget('tee'), editBudget('shirt'), editBudget('sweaters'), editBudget('waterproof')]).toEqual([
      0, 1, 2, 2,
    ]);
    expect(isCorrectable('hb4242')).toBe(false);
    expect(isCorrectable('t-shirt')).toBe(false);
    expect(isCorrectable('jacket')).toBe(true);
  });

  test('Damerau distance counts a transposition as one edit', () => {
    expect(damerauDistance('shrit', 'shirt')).toBe(1);
    expect(damerauDistance('sweeter', 'sweater')).toBe(1);
    expect(damerauDistance('swter', 'sweater')).toBe(2);
  });

  test('corrections: within budget, closest distance only, most frequent first; none for a known word', () => {
    const candidates = [
      { term: 'shirt', docCount: 10 },
      { term: 'short', docCount: 50 },
      { term: 'shirts', docCount: 1 },
    ];
    expect(chooseCorrections('shirt', candidates)).toEqual([]);
    expect(chooseCorrections('shurt', candidates)).toEqual([
      { from: 'shurt', to: 'short', distance: 1 },
      { from: 'shurt', to: 'shirt', distance: 1 },
    ]);
    expect(chooseCorrections('tee', [{ term: 'tea', docCount: 1 }])).toEqual([]);
  });
});

describe('synonyms', () => {
  const map = synonymMap([
    { synonymType: 'equivalent', terms: ['tee shirt', 't-shirt', 'tee'] },
    { synonymType: 'oneway', terms: ['footwear', 'boot', 'shoe'] },
  ]);
  test('equivalent every way, multi-word terms as phrases; oneway only from the first term', () => {
    const { query, used } = expandSynonyms(parseQuery('red tee shirt '), map);
    expect(query.must[1]).toEqual([
      { kind: 'phrase', text: 'tee shirt' },
      { kind: 'word', text: 't-shirt', prefix: false },
      { kind: 'word', text: 'tee', prefix: false },
    ]);
    expect(used).toEqual([{ term: 'tee shirt', expandedTo: ['t-shirt', 'tee'] }]);
    expect(expandSynonyms(parseQuery('footwear '), map).query.must[0].map((t) => t.text)).toEqual([
      'footwear',
      'boot',
      'shoe',
    ]);
    expect(expandSynonyms(parseQuery('boot '), map).query.must[0].map((t) => t.text)).toEqual(['boot']);
  });

  test('plan: corrections become alternatives, the exact query keeps none', () => {
    const plan = planQuery('shrit ', [], [{ word: 'shrit', term: 'shirt', docCount: 3, prefixKnown: false }]);
    expect(plan.full.must[0].map((t) => t.text)).toEqual(['shrit', 'shirt']);
    expect(plan.exact!.must[0].map((t) => t.text)).toEqual(['shrit']);
    expect(planQuery('the shirt ', [], []).full.must).toHaveLength(1);
  });
});

describe('merchandising rules', () => {
  const rule = (over: Partial<ActiveRule>): ActiveRule => ({
    id: 'mr_1',
    matchQuery: 'rain jacket',
    matchType: 'contains',
    action: 'pin',
    productId: 'p1',
    pinPosition: 0,
    scoreMultiplier: null,
    ...over,
  });
  test('exact, contains (as a phrase) and all (every word)', () => {
    expect(ruleMatches(rule({ matchType: 'exact' }), 'rain jacket')).toBe(true);
    expect(ruleMatches(rule({ matchType: 'exact' }), 'red rain jacket')).toBe(false);
    expect(ruleMatches(rule({}), 'red rain jacket')).toBe(true);
    expect(ruleMatches(rule({}), 'jacket rain')).toBe(false);
    expect(ruleMatches(rule({}), 'rain jackets')).toBe(false);
    expect(ruleMatches(rule({ matchType: 'all' }), 'jacket for rain')).toBe(true);
  });
  test('by priority: the first hide or pin decides a product; boosts and buries multiply', () => {
    const plan = planRules(
      [
        rule({ id: 'h', action: 'hide', productId: 'p1' }),
        rule({ id: 'p', action: 'pin', productId: 'p1', pinPosition: 2 }),
        rule({ id: 'b1', action: 'boost', productId: 'p2', scoreMultiplier: 4 }),
        rule({ id: 'b2', action: 'bury', productId: 'p2', scoreMultiplier: 0.5 }),
      ],
      'rain jacket',
    );
    expect(plan.hidden).toEqual(['p1']);
    expect(plan.pins).toEqual([]);
    expect(plan.multipliers.get('p2')).toBe(2);
  });
  test('pins take their positions (the next free one when taken), organic items fill the rest', () => {
    expect(
      placePins(
        ['a', 'b', 'c'],
        [
          { item: 'X', position: 1 },
          { item: 'Y', position: 1 },
        ],
      ),
    ).toEqual(['a', 'X', 'Y', 'b', 'c']);
    expect(placePins(['a'], [{ item: 'X', position: 5 }])).toEqual(['a', 'X']);
  });
});
