/**
 * Filters: the products a search's filters admit (type, tag, collection, stock, price in the answer's currency,
 * hidden products out), as a test per product read from the facet records, or as kept product sets for the value
 * filters; and the merchandising pins added to an answer's products.
 */
import { FACET_RECORD, positionOf, type ProductIndex } from '../product-index.js';
import type { ProductFilters, ProductSearch } from '../search.sql.js';
import { intersectionOf, keptPostings } from './kept-sets.js';
import { Ascending, collectedSet, union } from './sorted-sets.js';

/** `x` rounded to an integer, halves to even, as PostgreSQL casts a double precision to an integer. */
export const roundHalfEven = (x: number) => {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
};

/** The products of the filters and not hidden, as a test per product (null: every product). */
export function admitted(index: ProductIndex, search: ProductSearch): ((doc: number) => boolean) | null {
  const { filters, rate } = search;
  if (search.hidden.length === 0 && Object.values(filters).every((value) => value === undefined)) return null;
  const hidden = new Set(search.hidden.map((id) => positionOf(index, id)).filter((d) => d !== undefined));
  // A type no product has matches none (-2; -1 is a product without a type).
  const type =
    filters.productType === undefined
      ? undefined
      : index.types.indexOf(filters.productType) === -1
        ? -2
        : index.types.indexOf(filters.productType);
  const tag = filters.tag === undefined ? undefined : index.tags.indexOf(filters.tag);
  const collection = filters.collectionId === undefined ? undefined : index.collectionIds.indexOf(filters.collectionId);
  const holds = (values: Int32Array, starts: Int32Array, doc: number, value: number) => {
    for (let i = starts[doc]; i < starts[doc + 1]; i++) if (values[i] === value) return true;
    return false;
  };
  // The figures are read from the product's facet record (which the answer's counts read next), its columns only
  // for a product whose record overflowed.
  const records = index.facetRecords;
  const { words, overflow, countShift } = FACET_RECORD;
  const inlineHolds = (word: number, at: number, value: number) => {
    const count = (word >>> countShift) & 7;
    for (let i = 0; i < count; i++)
      if (((records[at + 2 + (i >> 1)] >>> ((i & 1) * 16)) & 0xffff) === value) return true;
    return false;
  };
  const collectionValue = collection === undefined || collection === -1 ? -1 : index.tags.length + collection;
  return (doc) => {
    if (hidden.size > 0 && hidden.has(doc)) return false;
    const at = doc * words;
    const word = records[at + 1];
    const spilled = (word & overflow) !== 0;
    if (type !== undefined && (spilled ? index.docTypes[doc] : (word & 0xffff) - 1) !== type) return false;
    if (tag !== undefined && !(spilled ? holds(index.tagValues, index.docTags, doc, tag) : inlineHolds(word, at, tag)))
      return false;
    if (
      collection !== undefined &&
      !(spilled
        ? holds(index.collectionValues, index.docCollections, doc, collection)
        : collectionValue !== -1 && inlineHolds(word, at, collectionValue))
    )
      return false;
    if (filters.inStock !== undefined && ((word & FACET_RECORD.inStock) !== 0) !== filters.inStock) return false;
    if (filters.priceMin !== undefined && roundHalfEven(records[at] * rate) < filters.priceMin) return false;
    if (filters.priceMax !== undefined && roundHalfEven(records[at] * rate) > filters.priceMax) return false;
    return true;
  };
}

/** The filters that select a set of products by a value (type, tag, collection, stock), one at a time. */
const VALUE_FILTERS = ['productType', 'tag', 'collectionId', 'inStock'] as const;

/**
 * The products `filter` alone admits, ascending: kept per index (as a search engine's filter cache keeps a
 * filter clause's documents), so a filtered answer is a kept list its counts and rankings are kept with.
 */
function filterSet(index: ProductIndex, search: ProductSearch, filter: ProductFilters): Int32Array {
  return keptPostings(index, `filter:${JSON.stringify(filter)}`, () => {
    const admit = admitted(index, { ...search, hidden: [], filters: filter })!;
    return collectedSet(index.ids.length, (docs) => {
      let n = 0;
      for (let doc = 0; doc < index.ids.length; doc++) if (admit(doc)) docs[n++] = doc;
      return n;
    });
  });
}

/** The products of `docs` admitted by the filters, with the admitted pins; ascending, with a mark per pin. */
export function withPins(index: ProductIndex, search: ProductSearch, docs: Int32Array) {
  // The value filters as kept sets (an intersection of kept lists is kept); prices and hidden products tested one by one.
  for (const name of VALUE_FILTERS)
    if (search.filters[name] !== undefined)
      docs = intersectionOf(index, docs, filterSet(index, search, { [name]: search.filters[name] }));
  const { priceMin, priceMax } = search.filters;
  const filter = admitted(index, { ...search, filters: { priceMin, priceMax } });
  if (search.pinned.length === 0 && filter === null) return { docs, pin: new Uint8Array(docs.length) };
  const admit = filter ?? (() => true);
  const pinSet = new Set<number>();
  // A pin needs every filter.
  const admitPin = search.pinned.length === 0 ? admit : (admitted(index, search) ?? (() => true));
  for (const id of search.pinned) {
    const position = positionOf(index, id);
    if (position !== undefined && admitPin(position)) pinSet.add(position);
  }
  // The admitted products in order (still ascending), then the pins merged in.
  const kept = collectedSet(docs.length, (out) => {
    let count = 0;
    for (let i = 0; i < docs.length; i++) if (!pinSet.has(docs[i]) && admit(docs[i])) out[count++] = docs[i];
    return count;
  });
  if (pinSet.size === 0) return { docs: kept, pin: new Uint8Array(kept.length) };
  const pins = Int32Array.from(pinSet).sort();
  const all = union(kept, pins);
  const pinned = new Ascending(pins);
  const pin = new Uint8Array(all.length);
  for (let i = 0; i < all.length; i++) pin[i] = pinned.has(all[i]) ? 1 : 0;
  return { docs: all, pin };
}

/** How many products of `docs` the filters admit (hidden ones out), counting up to `enough`. */
export function admittedCount(index: ProductIndex, search: ProductSearch, docs: Int32Array, enough = Infinity): number {
  const admit = admitted(index, search);
  if (admit === null) return Math.min(docs.length, enough);
  let count = 0;
  for (const position of docs) if (admit(position) && ++count >= enough) break;
  return count;
}
