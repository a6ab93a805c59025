/**
 * Product sets kept across answers, per index: each lexeme's postings, the postings of prefixes and weighted
 * operands, and unions, intersections and differences of kept sets (a word's expansion, two words, a phrase's
 * verified products), within one bound per index, least recently used out, as a search engine's query and filter
 * caches keep a clause's documents per segment. A kept set has a number (never reused), so what is computed from it
 * (facet counts, ranks, impact orders) can be kept under it; an index replaced takes its sets along.
 */
import { LRUCache } from 'lru-cache';
import type { ProductIndex } from '../product-index.js';
import { collectedSet, difference, intersect, union, unique } from './sorted-sets.js';

/** The postings arrays kept across answers (what is computed from one may be kept with it). */
export const keptLists = new WeakSet<Int32Array>();

/** Per index, the postings of single lexemes as arrays kept across answers (so what is computed from one, its counts, can be kept with it). */
const lexemeLists = new WeakMap<ProductIndex, Map<number, Int32Array>>();

/** The postings of the one lexeme at `low` (none when `high === low`), as a kept array per index. */
export function lexemePostingsOf(index: ProductIndex, low: number, high: number): Int32Array {
  let lists = lexemeLists.get(index);
  if (!lists) lexemeLists.set(index, (lists = new Map<number, Int32Array>()));
  // An operand of no lexeme (a word no product holds) has one kept empty list per index, so what is built from it
  // (a union with its other forms) is kept too, and its counts with it.
  const key = high === low ? -1 : low;
  let docs = lists.get(key);
  if (!docs) {
    docs =
      high === low
        ? new Int32Array(0)
        : index.postingDocs.subarray(index.lexemePostings[low], index.lexemePostings[high]);
    lists.set(key, docs);
    keep(docs);
  }
  return docs;
}

/**
 * Per index, the postings of lexeme ranges (prefixes) and of weighted operands (a title's words) searched lately,
 * up to MAX_MERGED_POSTINGS products in all.
 */
const keptByIndex = new WeakMap<ProductIndex, LRUCache<string, Int32Array>>();
const MAX_MERGED_POSTINGS = 1_000_000;

/** The products holding any lexeme of [low, high) with a position of an allowed `weight` (0: any), ascending (kept for the next search). */
export function mergedPostings(index: ProductIndex, low: number, high: number, weight: number): Int32Array {
  return keptPostings(index, `${low}:${high}:${weight}`, () => {
    const { lexemePostings, postingDocs, postingWeights } = index;
    const [from, to] = [lexemePostings[low], lexemePostings[high]];
    if (weight === 0 && high - low === 1) return postingDocs.slice(from, to);
    // Postings with a position of an allowed weight (or none: any weight matches an entry without positions).
    return collectedSet(to - from, (docs) => {
      let n = 0;
      for (let p = from; p < to; p++) if (weight === 0 || postingWeights[p] & weight) docs[n++] = postingDocs[p];
      return high - low > 1 ? unique(docs.subarray(0, n).sort()).length : n;
    });
  });
}

/** Forgets every set kept for `index` (SEARCH_INDEX_CACHES=off, index-caches.ts): its next search keeps them anew. */
export function forgetKeptSets(index: ProductIndex): void {
  lexemeLists.delete(index);
  keptByIndex.delete(index);
}

/** Numbers for kept postings arrays, so a union of two can be kept by theirs. */
export const keptIds = new WeakMap<Int32Array, number>();
let nextKeptId = 0;

/**
 * The union of two postings arrays; kept per index when both are kept (a word with its stems, exact form and
 * synonyms is one set of products for every search of it, as an engine keeps a term's expansion).
 */
export function unionOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
  if (b.length === 0 || a === b) return a;
  if (a.length === 0) return b;
  const [idA, idB] = [keptIds.get(a), keptIds.get(b)];
  if (idA === undefined || idB === undefined) return union(a, b);
  return keptPostings(index, `${idA}|${idB}`, () => union(a, b));
}

/**
 * The intersection of two postings arrays; kept per index when both are kept, as unionOf keeps unions: the products
 * holding two words are one set for every search of both (a query, its exact form and its word pairs often ask for
 * the same one), and what is computed from a kept set (its facet counts) is kept with it.
 */
export function intersectionOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
  const [idA, idB] = [keptIds.get(a), keptIds.get(b)];
  if (idA === undefined || idB === undefined || a === b) return intersect(a, b);
  return keptPostings(index, `${Math.min(idA, idB)}&${Math.max(idA, idB)}`, () => intersect(a, b));
}

/** The products of `a` not in `b` (both ascending); kept when both are kept lists, as intersectionOf is. */
export function differenceOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
  const [idA, idB] = [keptIds.get(a), keptIds.get(b)];
  if (idA === undefined || idB === undefined) return difference(a, b);
  return keptPostings(index, `${idA}-${idB}`, () => difference(a, b));
}

/**
 * The postings kept under `key` in the index's bounded cache (lru-cache, sized by products; a set of more than
 * MAX_MERGED_POSTINGS is numbered but not kept), computed when absent.
 */
export function keptPostings(index: ProductIndex, key: string, compute: () => Int32Array): Int32Array {
  let cache = keptByIndex.get(index);
  if (!cache) {
    cache = new LRUCache({ maxSize: MAX_MERGED_POSTINGS, sizeCalculation: (docs) => Math.max(1, docs.length) });
    keptByIndex.set(index, cache);
  }
  const known = cache.get(key);
  if (known) return known;
  const docs = compute();
  cache.set(key, docs);
  keep(docs);
  return docs;
}

/** Marks `docs` kept (numbered, so what is computed from it may be kept with it); answers it. */
export function keep(docs: Int32Array): Int32Array {
  if (keptLists.has(docs)) return docs;
  keptLists.add(docs);
  keptIds.set(docs, nextKeptId++);
  return docs;
}
