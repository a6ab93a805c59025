/**
 * Impact orders: the first rows of a kept set in one ranking's order, kept per index, so a one-word query's first
 * pages are read, not ranked (as a search engine reads a term's impact-ordered postings).
 */
import type { ProductIndex } from '../product-index.js';
import type { ProductSearch } from '../search.sql.js';
import { keptIds } from './kept-sets.js';
import { queryIdOf } from './matching.js';
import { type ImpactOrder, type Rows, type ScoringQueries, hasBonus, rankedOf, scratchOf, topRows } from './ranking.js';

/** Rows an impact order keeps at most: the first five pages of twenty. */
const IMPACT_ORDER_ROWS = 100;
/*
 * Impact orders by set and ranking (per index, in rankedOf), as a search engine keeps a term's postings in the order
 * of their scores so that a one-term query's first pages are read, not ranked: kept for answers ranked by their
 * tsqueries alone (no whole-query bonus, no merchandising multiplier, no pin) over a kept set, keyed by the set's and
 * the tsqueries' numbers.
 */

/** The key of the strict answer's impact order; undefined when its order depends on more than its tsqueries and set. */
export function impactOrderKey(search: ProductSearch, queries: ScoringQueries, docs: Int32Array): string | undefined {
  const setId = keptIds.get(docs);
  if (setId === undefined || search.pinned.length > 0 || search.multipliers.size > 0 || hasBonus(search))
    return undefined;
  return `${setId}|${queryIdOf(queries.ranked)}|${queries.exact ? queryIdOf(queries.exact) : ''}`;
}

/** Whether `order` holds the first `count` rows of its set. */
export const holdsFirst = (order: ImpactOrder, count: number) => order.complete || order.rows.length >= count;

/** Keeps the first IMPACT_ORDER_ROWS of `rows` (every one ranked, none pinned) in `order` under `key`, for the index. */
export function keepImpactOrder(
  index: ProductIndex,
  key: string,
  rows: Rows,
  order: (a: number, b: number) => number,
): ImpactOrder {
  const first = Int32Array.from(topRows(rows.pin, IMPACT_ORDER_ROWS, order));
  const kept: ImpactOrder = {
    rows: first,
    text: Float64Array.from(first, (r) => rows.text[r]),
    final: Float64Array.from(first, (r) => rows.final[r]),
    exact: Uint8Array.from(first, (r) => rows.exact[r]),
    complete: first.length === rows.docs.length,
  };
  rankedOf(index).orders.set(key, kept);
  return kept;
}

/** The rows of a strict answer over `docs` whose first rows are `known` (their scores written; every row matched). */
export function rowsOfImpactOrder(
  index: ProductIndex,
  docs: Int32Array,
  known: ImpactOrder,
  clauseCount: number,
): Rows {
  const scratch = scratchOf(index);
  const text = scratch.text.subarray(0, docs.length);
  const final = scratch.final.subarray(0, docs.length);
  const exact = scratch.exact.subarray(0, docs.length);
  for (let i = 0; i < known.rows.length; i++) {
    const r = known.rows[i];
    text[r] = known.text[i];
    final[r] = known.final[i];
    exact[r] = known.exact[i];
  }
  const matched = new Int32Array(docs.length).fill(clauseCount);
  return { docs, pin: new Uint8Array(docs.length), text, final, exact, matched, head: new Uint8Array(0) };
}
