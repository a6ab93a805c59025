/**
 * Facets: the counts by type, tag and collection, the in-stock count and price bounds of an answer's products, in
 * one pass over their facet records, kept per kept set.
 */
import { FACET_RECORD, type ProductIndex } from '../product-index.js';
import type { FacetsJson } from '../search.sql.js';
import { compareCodePoints } from '../suggest-index.text.js';
import { keptLists } from './kept-sets.js';

const FACET_VALUES = 50;

/** The top values of a facet: counts by value, the 50 most frequent (ties by value). */
function topValues(counts: Int32Array, names: readonly string[]) {
  const values: Array<{ value: string; count: number }> = [];
  for (let v = 0; v < counts.length; v++) if (counts[v] > 0) values.push({ value: names[v], count: counts[v] });
  return topOf(values);
}

const topOf = (values: Array<{ value: string; count: number }>) =>
  values.sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value)).slice(0, FACET_VALUES);

/** The collections of a facet's top values that still exist, with their titles, by count, title and id. */
const titledCollections = (values: Array<{ value: string; count: number }>, titles: ReadonlyMap<string, string>) =>
  values
    .flatMap(({ value: id, count }) => {
      const title = titles.get(id);
      return title === undefined ? [] : [{ id, title, count }];
    })
    .sort((a, b) => b.count - a.count || compareCodePoints(a.title, b.title) || compareCodePoints(a.id, b.id));

/**
 * Counts kept per set of products: an answer whose products are exactly one lexeme's or one prefix's postings (a
 * one-word search without filters) counts them once per index, as an engine keeps facet counts per term.
 */
const countsBySet = new WeakMap<Int32Array, ReturnType<typeof countProducts>>();

/** The facet counts, in-stock count and price bounds of an answer's products. */
export function countsOf(index: ProductIndex, docs: Int32Array) {
  let counts = countsBySet.get(docs);
  if (counts) return counts;
  counts = countProducts(index, docs);
  if (keptLists.has(docs)) countsBySet.set(docs, counts);
  return counts;
}

/** countsOf in one pass over the products' facet records (one read per product but for those marked overflowing). */
function countProducts(index: ProductIndex, docs: Int32Array) {
  const types = new Int32Array(index.types.length);
  const tags = new Int32Array(index.tags.length);
  const collections = new Int32Array(index.collectionIds.length);
  const tagCount = tags.length;
  const records = index.facetRecords;
  const count = (value: number) => {
    if (value < tagCount) tags[value]++;
    else collections[value - tagCount]++;
  };
  let inStock = 0;
  let [low, high] = [Infinity, -Infinity];
  for (let d = 0; d < docs.length; d++) {
    const at = docs[d] * FACET_RECORD.words;
    const price = records[at];
    if (price < low) low = price;
    if (price > high) high = price;
    const word = records[at + 1];
    if (word & FACET_RECORD.inStock) inStock++;
    if (word & FACET_RECORD.overflow) {
      const doc = docs[d];
      if (index.docTypes[doc] !== -1) types[index.docTypes[doc]]++;
      for (let i = index.docTags[doc]; i < index.docTags[doc + 1]; i++) tags[index.tagValues[i]]++;
      for (let i = index.docCollections[doc]; i < index.docCollections[doc + 1]; i++)
        collections[index.collectionValues[i]]++;
      continue;
    }
    const type = (word & 0xffff) - 1;
    if (type !== -1) types[type]++;
    const values = (word >>> FACET_RECORD.countShift) & 7;
    if (values > 0) count(records[at + 2] & 0xffff);
    if (values > 1) count(records[at + 2] >>> 16);
    if (values > 2) count(records[at + 3] & 0xffff);
    if (values > 3) count(records[at + 3] >>> 16);
  }
  return { types, tags, collections, inStock, low, high };
}

/** The facets of an answer from its counts: the top values of each, collections by title (those still existing). */
export function facetsOf(
  index: ProductIndex,
  counts: ReturnType<typeof countsOf>,
): Omit<FacetsJson, 'in_stock' | 'price'> {
  return {
    product_type: topValues(counts.types, index.types),
    tag: topValues(counts.tags, index.tags),
    collection: titledCollections(topValues(counts.collections, index.collectionIds), index.collectionTitles),
  };
}

/**
 * The facets, in-stock count and price bounds of an answer whose products lie in several indexes (an index and
 * its changed products' own, see ProductSegments): counts added by value, then the top values as facetsOf takes them.
 */
export function mergedFacetsOf(parts: Array<{ index: ProductIndex; docs: Int32Array }>) {
  const named = {
    types: new Map<string, number>(),
    tags: new Map<string, number>(),
    collections: new Map<string, number>(),
  };
  const add = (into: Map<string, number>, counts: Int32Array, names: readonly string[]) => {
    for (let v = 0; v < counts.length; v++)
      if (counts[v] > 0) into.set(names[v], (into.get(names[v]) ?? 0) + counts[v]);
  };
  let [inStock, low, high] = [0, Infinity, -Infinity];
  for (const { index, docs } of parts) {
    const counts = countsOf(index, docs);
    add(named.types, counts.types, index.types);
    add(named.tags, counts.tags, index.tags);
    add(named.collections, counts.collections, index.collectionIds);
    inStock += counts.inStock;
    low = Math.min(low, counts.low);
    high = Math.max(high, counts.high);
  }
  const values = (counts: Map<string, number>) => topOf([...counts].map(([value, count]) => ({ value, count })));
  // Every part was read with the same collections (a change of one rebuilds the index).
  const facets: Omit<FacetsJson, 'in_stock' | 'price'> = {
    product_type: values(named.types),
    tag: values(named.tags),
    collection: titledCollections(values(named.collections), parts[0].index.collectionTitles),
  };
  return { facets, inStock, low, high };
}
