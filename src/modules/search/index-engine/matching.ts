/**
 * Matching: the products a compiled tsquery matches, from the postings where the boolean operators decide on
 * whole documents (AND, OR, NOT of operands), verified one by one with the exact `@@` port where phrases are involved;
 * verified sets are kept per candidate set and tsquery.
 */
import { tsMatches, type TsNode, type TsQuery } from '../engine/pg-tsquery.js';
import { sortedUniqueOperands } from '../engine/pg-tsrank.js';
import type { ProductIndex } from '../product-index.js';
import type { IndexDoc } from './index-doc.js';
import { differenceOf, intersectionOf, keptIds, keptPostings, unionOf } from './kept-sets.js';
import { collectedSet, everyProduct, intersect, sharesAny } from './sorted-sets.js';

/** A set of products as the postings give it: `docs` ascending (null: every product); `exact` when no product of it fails the query. */
interface DocSet {
  docs: Int32Array | null;
  exact: boolean;
  /** For a NOT: the set it negates. */
  negated?: DocSet;
}

/**
 * The products `node` may match, from the postings (weights applied): exact where only operands, AND, OR and
 * AND NOT are involved (the boolean operators on whole documents); a superset where phrases are.
 */
function setOf(doc: IndexDoc, node: TsNode): DocSet {
  if (node.kind === 'val') return { docs: doc.postings(node), exact: true };
  if (node.kind === 'not') return { docs: null, exact: false, negated: setOf(doc, node.right) };
  const right = setOf(doc, node.right);
  const left = setOf(doc, node.left!);
  if (node.kind === 'or') {
    if (left.docs === null || right.docs === null) return { docs: null, exact: false };
    return { docs: unionOf(doc.index, left.docs, right.docs), exact: left.exact && right.exact };
  }
  if (node.kind === 'and') {
    for (const [kept, not] of [
      [left, right],
      [right, left],
    ]) {
      if (kept.docs !== null && not.negated?.exact && not.negated.docs !== null)
        return { docs: differenceOf(doc.index, kept.docs, not.negated.docs), exact: kept.exact };
    }
  }
  const exact = node.kind === 'and' && left.exact && right.exact;
  if (left.docs === null) return { docs: right.docs, exact: false };
  if (right.docs === null) return { docs: left.docs, exact: false };
  return { docs: intersectionOf(doc.index, left.docs, right.docs), exact };
}

/** The products matching `query`, ascending (verified one by one where the postings are not exact). */
export function matchingDocs(index: ProductIndex, doc: IndexDoc, query: TsQuery): Int32Array {
  if (query.root === null) return new Int32Array(0);
  doc.prepare(query);
  const set = setOf(doc, query.root);
  const docs = set.docs ?? everyProduct(index.ids.length);
  return set.exact ? docs : verified(doc, query, docs);
}

/** Numbers for compiled tsqueries (compile keeps one per statement text), so what is verified of one can be kept under its number. */
const queryIds = new WeakMap<TsQuery, number>();
let nextQueryId = 0;

/** The number of a compiled tsquery (given on first use, never reused). */
export function queryIdOf(query: TsQuery): number {
  let queryId = queryIds.get(query);
  if (queryId === undefined) queryIds.set(query, (queryId = nextQueryId++));
  return queryId;
}

/**
 * The products of the ascending `candidates` (what the postings give, a superset) that match `query`, verified
 * one by one; kept per index when the candidates are a kept list, as a search engine's query cache keeps a
 * clause's matching documents per segment: a phrase of two words (a quoted pair, a query's word pairs) is then
 * verified once for every search of it, not per search.
 */
function verified(doc: IndexDoc, query: TsQuery, candidates: Int32Array): Int32Array {
  const verify = () =>
    collectedSet(candidates.length, (out) => {
      let n = 0;
      for (let i = 0; i < candidates.length; i++) if (tsMatches(query, doc.at(candidates[i]))) out[n++] = candidates[i];
      return n;
    });
  const candidatesId = keptIds.get(candidates);
  if (candidatesId === undefined) return verify();
  return keptPostings(doc.index, `${candidatesId}@${queryIdOf(query)}`, verify);
}

/** The products of the ascending `among` matching `query` (verified one by one only there, where the postings are not exact). */
export function matchingAmong(doc: IndexDoc, query: TsQuery, among: Int32Array): Int32Array {
  if (query.root === null || among.length === 0) return new Int32Array(0);
  doc.prepare(query);
  const set = setOf(doc, query.root);
  if (set.docs === null) return set.exact ? among : verified(doc, query, among);
  if (set.exact) return intersect(set.docs, among);
  // A kept superset is verified whole (once per index), others only where they meet `among`.
  return keptIds.has(set.docs)
    ? intersect(verified(doc, query, set.docs), among)
    : verified(doc, query, intersect(set.docs, among));
}

/** How many of the query's distinct operands (any weight, as calc_rank finds them) occur in some of the ascending `rows`, counted up to `enough`. */
export function operandsInRows(doc: IndexDoc, query: TsQuery, rows: Int32Array, enough: number): number {
  let present = 0;
  for (const operand of sortedUniqueOperands(query))
    if (sharesAny(rows, doc.postings(operand, 0)) && ++present >= enough) break;
  return present;
}
