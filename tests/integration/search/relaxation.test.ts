import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { search as searchAnswer, type SearchQuery } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();

const search = async (query: SearchQuery) => (await searchAnswer(store.api, query)).products;
const titles = async (query: SearchQuery) => (await search(query)).data.map((p) => p.title);

beforeAll(async () => {
  const make = (title: string, product_type: string, description?: string) =>
    createProduct(store.api, { title, product_type, description, variants: [{ title: 'M', price: 5000 }] });
  await make('Grey Merino Hoodie', 'Sweatshirts');
  await make('Grey Cotton Hoodie', 'Sweatshirts');
  await make('Black Merino Hoodie', 'Sweatshirts');
  await make('Grey Linen Shirt', 'Shirts');
  await make('Merino Beanie', 'Accessories');
  await make('Oak Table', 'Furniture');
  await make('Alpine Wool Parka', 'Outerwear');
  // Holds every word of the title below more often, so text relevance alone would rank it above the exact title.
  await make('Alpine Wool Parka Kids', 'Outerwear', 'An alpine wool parka for kids: alpine wool, parka warmth.');
  await make('Wool Parka', 'Outerwear');
  await make('Alpine Down Parka', 'Outerwear');
  await make('Alpine Wool Socks', 'Socks');
  await make('Sand Alpaca Knit Gilet', 'Outerwear');
  await make('Navy Alpaca Knit Gilet', 'Outerwear');
  await make('Sand Fleece Gilet', 'Outerwear');
  await make('Sand Alpaca Knit Scarf', 'Accessories');
});

describe('graded relaxation', () => {
  test('strict matches first, then by words matched, the head noun breaking ties; total and facets count the answer', async () => {
    const result = await search({ q: 'grey hoodie' });
    expect(result.data.map((p) => [p.title, p.matched_words, p.relaxed])).toEqual([
      [expect.stringMatching(/^Grey (Merino|Cotton) Hoodie$/), 2, false],
      [expect.stringMatching(/^Grey (Merino|Cotton) Hoodie$/), 2, false],
      ['Black Merino Hoodie', 1, true], // the head noun: "hoodie" before "grey"
      ['Grey Linen Shirt', 1, true],
    ]);
    expect(result.relaxation).toEqual({ strict_total: 2, words: 2, min_matched_words: 1, dropped_words: [] });
    expect(result.total).toBe(4);
    expect(result.facets!.product_type).toEqual([
      { value: 'Sweatshirts', count: 3 },
      { value: 'Shirts', count: 1 },
    ]);
  });

  test('no relaxation when the strict matches fill the page', async () => {
    const result = await search({ q: 'grey hoodie', limit: 2 });
    expect(result.relaxation).toBeUndefined();
    expect(result.total).toBe(2);
    expect(result.data.every((p) => !p.relaxed && p.matched_words === 2)).toBe(true);
  });

  test('a sentence: words no product holds are dropped first, the product type and material asked for come first', async () => {
    const result = await search({ q: 'cozy grey merino hoodie for the weekend', explain: true });
    expect(result.relaxation).toEqual({
      strict_total: 0,
      words: 5,
      min_matched_words: 1,
      dropped_words: ['cozy', 'weekend'],
    });
    expect(result.data[0]).toMatchObject({ title: 'Grey Merino Hoodie', matched_words: 3, relaxed: true });
    expect(result.data[0].explain!.dropped_words).toEqual(['cozy', 'weekend']);
    expect(result.data.slice(1, 3).map((p) => p.title)).toEqual(
      expect.arrayContaining(['Grey Cotton Hoodie', 'Black Merino Hoodie']),
    );
    const black = result.data.find((p) => p.title === 'Black Merino Hoodie')!;
    expect(black.explain!.dropped_words).toEqual(['cozy', 'grey', 'weekend']);
  });

  test('quoted phrases are never relaxed', async () => {
    const result = await search({ q: '"merino hoodie" grey' });
    expect(result.data.map((p) => [p.title, p.relaxed])).toEqual([
      ['Grey Merino Hoodie', false],
      ['Black Merino Hoodie', true],
    ]);
    expect(result.relaxation).toMatchObject({ strict_total: 1, words: 2, min_matched_words: 1 });
  });

  test('exclusions are never relaxed', async () => {
    const found = await titles({ q: 'grey hoodie -cotton' });
    expect(found[0]).toBe('Grey Merino Hoodie');
    expect(found).not.toContain('Grey Cotton Hoodie');
    expect(found).toEqual(expect.arrayContaining(['Black Merino Hoodie', 'Grey Linen Shirt']));
  });

  test('OR keeps its meaning: an OR group must match, and alone it is never relaxed', async () => {
    const either = await search({ q: 'beanie OR table' });
    expect(either.relaxation).toBeUndefined();
    expect(either.data.map((p) => p.title).sort()).toEqual(['Merino Beanie', 'Oak Table']);
    const withWord = await search({ q: 'grey beanie OR table' });
    expect(withWord.relaxation).toMatchObject({ strict_total: 0, words: 2, min_matched_words: 1 });
    expect(withWord.data.map((p) => [p.title, p.matched_words]).sort()).toEqual([
      ['Merino Beanie', 1],
      ['Oak Table', 1],
    ]);
  });

  test('a product of the kind asked for needs one word fewer than a product of another kind', async () => {
    // Gilets with two of the other three words, or one, before a scarf with all three.
    const result = await search({ q: 'sand alpaca knit gilet', limit: 3 });
    expect(result.data.map((p) => [p.title, p.matched_words, p.relaxed])).toEqual([
      ['Sand Alpaca Knit Gilet', 4, false],
      ['Navy Alpaca Knit Gilet', 3, true],
      ['Sand Fleece Gilet', 2, true],
    ]);
    expect(result.relaxation).toEqual({ strict_total: 1, words: 4, min_matched_words: 2, dropped_words: [] });
    expect(result.total).toBe(4); // the scarf (three words, not a gilet) is in the answer, after the gilets
  });

  test('a single word is never relaxed into something else', async () => {
    const result = await search({ q: 'velvet' });
    expect(result).toMatchObject({ total: 0, data: [] });
    expect(result.relaxation).toBeUndefined();
  });
});

describe('ranking by the whole query', () => {
  test('a full product title ranks that product first and the products sharing its words after it', async () => {
    const result = await search({ q: 'Alpine Wool Parka' });
    expect(result.data.map((p) => p.title)).toEqual([
      'Alpine Wool Parka',
      'Alpine Wool Parka Kids',
      expect.stringMatching(/^(Wool Parka|Alpine Down Parka)$/), // two words, the head noun among them
      expect.stringMatching(/^(Wool Parka|Alpine Down Parka)$/),
      'Alpine Wool Socks',
    ]);
    expect(result.data[0].score).toBeGreaterThan(result.data[1].score);
  });
});
