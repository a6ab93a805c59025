/**
 * Ranking: each row's `ts_rank` (calc_rank_or from the postings, kept per set and operands; calc_rank_and per
 * product), the whole-query bonuses and merchandising multipliers, and top-k: a page ranks only the groups of rows
 * whose score bound can reach it, as the statements' ORDER BY would order them.
 */
import { Prisma } from '../../../generated/prisma/client.js';
import type { Ctx } from '../../../shared/context.js';
import type { TsQuery } from '../engine/pg-tsquery.js';
import { NO_PAIRS_RANK, rankOrFromSum, ranksByOr, sortedUniqueOperands, tsRank } from '../engine/pg-tsrank.js';
import { RANK_WEIGHTS, positionOf, productsTitled, type ProductIndex } from '../product-index.js';
import { pairSql, type ProductSearch } from '../search.sql.js';
import { querySql } from '../tsquery.js';
import { compile } from './compiled-tsqueries.js';
import type { IndexDoc } from './index-doc.js';
import { LRUCache } from 'lru-cache';
import { keptIds } from './kept-sets.js';
import { matchingAmong, operandsInRows } from './matching.js';
import { Ascending, lowerBoundOf } from './sorted-sets.js';

/** Impact orders an index keeps at most (about 2 kB each), least recently used out: one per 50 products, 50 to 1,000. */
export const MIN_IMPACT_ORDERS = 50;
export const MAX_IMPACT_ORDERS = 1_000;

/** The first rows of a set in one ranking's order (exact form first, then the score, then the product) and their scores. */
export interface ImpactOrder {
  rows: Int32Array;
  text: Float64Array;
  final: Float64Array;
  exact: Uint8Array;
  /** Every row of the set is in `rows`. */
  complete: boolean;
}

/**
 * calc_rank_or ranks kept per set of products (arrays kept across answers: one lexeme's or prefix's postings) and
 * operands, keyed by the set's number (never reused), least recently used out past the index's bound. Kept as
 * float4, exactly: calc_rank_or answers a float4 (rankOrFromSum rounds to one). Kept per index, so one project's
 * searches never push another project's ranks (or impact orders, below) out; an index replaced takes its own along.
 */
interface RankedByIndex {
  ranks: LRUCache<string, Float32Array>;
  orders: LRUCache<string, ImpactOrder>;
}
const rankedByIndex = new WeakMap<ProductIndex, RankedByIndex>();
/**
 * Ranks an index keeps at most (4 bytes each), each entry counted as ENTRY_RANKS more (its key and array): ten per
 * product, between 20,000 and 500,000 (about 2 MB at 50,000 products and more).
 */
const MIN_KEPT_RANKS = 20_000;
const MAX_KEPT_RANKS = 500_000;
const ENTRY_RANKS = 64;

/** Forgets the ranks and impact orders kept for `index` (SEARCH_INDEX_CACHES=off, index-caches.ts). */
export function forgetRanked(index: ProductIndex): void {
  rankedByIndex.delete(index);
}

/** The index's kept ranks and impact orders, with its bounds (by its product count). */
export function rankedOf(index: ProductIndex): RankedByIndex {
  let ranked = rankedByIndex.get(index);
  if (!ranked) {
    const products = index.ids.length;
    ranked = {
      // lru-cache's size accounting; an array costing more than the whole bound is not kept (its maxEntrySize).
      ranks: new LRUCache({
        maxSize: Math.min(MAX_KEPT_RANKS, Math.max(MIN_KEPT_RANKS, products * 10)),
        sizeCalculation: (kept) => kept.length + ENTRY_RANKS,
      }),
      orders: new LRUCache({
        max: Math.min(MAX_IMPACT_ORDERS, Math.max(MIN_IMPACT_ORDERS, Math.ceil(products / 50))),
      }),
    };
    rankedByIndex.set(index, ranked);
  }
  return ranked;
}

/**
 * Keeps a copy of `ranks` under `key` for the index (absent: ranksOf keeps only after a miss, with no await between),
 * the least recently used out first while past the index's bound.
 */
function keepRanks(index: ProductIndex, key: string, ranks: Float64Array): void {
  rankedOf(index).ranks.set(key, new Float32Array(ranks));
}

/**
 * ts_rank(RANK_WEIGHTS, document, query) of each product of `rows`: from the postings when the rank is calc_rank_or's,
 * else per product (`pairs`: whether two of the query's operands occur in the rows, see pairsIn).
 */
function ranksOf(
  index: ProductIndex,
  doc: IndexDoc,
  query: TsQuery,
  rows: Int32Array,
  ranks: Float64Array,
  pairs: boolean,
): Float64Array {
  if (query.root === null) return ranks.fill(0);
  doc.prepare(query);
  if (!ranksByOr(query)) {
    // calc_rank_and sums over pairs of positions of two different operands: when at most one operand occurs in
    // any of the rows (the others excluded by a NOT, say), no row has a pair and each ranks as such a document does.
    if (!pairs) {
      for (let r = 0; r < rows.length; r++) ranks[r] = doc.at(rows[r]).size > 0 ? NO_PAIRS_RANK : 0;
      return ranks;
    }
    for (let r = 0; r < rows.length; r++) ranks[r] = tsRank(RANK_WEIGHTS, doc.at(rows[r]), query);
    return ranks;
  }
  const items = sortedUniqueOperands(query);
  // calc_rank_or depends on the distinct operands' lexemes alone: kept per set of products and operands.
  const setId = keptIds.get(rows);
  const key =
    setId === undefined
      ? undefined
      : `${setId}|${items.map((item) => `${doc.range(item).low}:${doc.range(item).high}`).join(',')}`;
  const kept = key === undefined ? undefined : rankedOf(index).ranks.get(key);
  if (kept) {
    ranks.set(kept);
    return ranks;
  }
  // Each operand's postings walked beside the rows (both ascending): sequential reads, summed in calc_rank_or's
  // order (operand, then lexeme within a prefix's range).
  const { postingAddends, addendValues, lexemePostings, postingDocs } = index;
  const f = Math.fround;
  ranks.fill(0);
  for (const item of items) {
    const { low, high } = doc.range(item);
    for (let lexeme = low; lexeme < high; lexeme++) {
      const end = lexemePostings[lexeme + 1];
      let p = lexemePostings[lexeme];
      let r = p < end ? lowerBoundOf(rows, postingDocs[p]) : rows.length;
      while (p < end && r < rows.length) {
        const posting = postingDocs[p];
        if (posting < rows[r]) p++;
        else if (posting > rows[r]) r++;
        else ranks[r] = f(ranks[r] + addendValues[postingAddends[p++]]);
      }
    }
  }
  for (let r = 0; r < rows.length; r++) ranks[r] = rankOrFromSum(items.length, ranks[r]);
  if (key !== undefined) keepRanks(index, key, ranks);
  return ranks;
}

/** The rows of an answer (the statements' `m`), one per product, ascending by product. */
export interface Rows {
  docs: Int32Array;
  pin: Uint8Array;
  exact: Uint8Array;
  text: Float64Array;
  final: Float64Array;
  matched: Int32Array;
  head: Uint8Array;
}

/** The tsqueries a scoring reads: the ranked one (the full query, or a relaxation level's candidates), the exact form's (null without corrections) and the pairs'. */
export interface ScoringQueries {
  ranked: TsQuery;
  exact: TsQuery | null;
  pairs: TsQuery[];
}

/** Compiles `ranked` with the exact form's and the pairs' tsqueries and `others`, in one round trip at most. */
export async function scoringQueries(ctx: Ctx, search: ProductSearch, ranked: Prisma.Sql, others: Prisma.Sql[]) {
  const [rankedQuery, exact, ...rest] = await compile(ctx, [
    ranked,
    search.exact ? querySql(search.exact) : Prisma.sql`''::tsquery`,
    ...search.pairs.map(pairSql),
    ...others,
  ]);
  const pairs = rest.slice(0, search.pairs.length);
  return {
    scoring: { ranked: rankedQuery, exact: search.exact ? exact : null, pairs },
    others: rest.slice(search.pairs.length),
  };
}

/**
 * Per index, the arrays an answer's scores are written to, and a relaxed answer's rows before they are copied out
 * (one answer at a time: an answer is computed between two awaits, and read before the next one).
 */
const scratches = new WeakMap<
  ProductIndex,
  {
    text: Float64Array;
    final: Float64Array;
    exact: Uint8Array;
    bonus: Float64Array;
    multiplier: Float64Array;
    rows: Int32Array;
    matched: Int32Array;
    head: Uint8Array;
  }
>();

/** The index's scratch arrays (sized to its products), reused by every answer computed from it. */
export function scratchOf(index: ProductIndex) {
  let scratch = scratches.get(index);
  if (!scratch) {
    const count = index.ids.length;
    scratch = {
      text: new Float64Array(count),
      final: new Float64Array(count),
      exact: new Uint8Array(count),
      bonus: new Float64Array(count),
      multiplier: new Float64Array(count),
      rows: new Int32Array(count),
      matched: new Int32Array(count),
      head: new Uint8Array(count),
    };
    scratches.set(index, scratch);
  }
  return scratch;
}

/**
 * The rows the strict answer shows: the first `count` unpinned rows in its order (exact form first, then the final
 * score, then the product), and every pinned row.
 */
interface ShownRows {
  count: number;
  pin: Uint8Array;
}

/**
 * What calc_rank_and answers at most: a probabilistic sum of terms sqrt(w1 * w2 * word_distance), each below 1
 * when no weight exceeds 1, stays at or below 1 as a float (Infinity: no bound, every row ranked).
 */
const RANK_AND_BOUND = RANK_WEIGHTS.every((weight) => weight <= 1) ? 1 : Infinity;

/** The score of a row an answer does not show, left unranked: below every ranked row's. */
const UNRANKED = -Number.MAX_VALUE;

/**
 * Text scores (rank plus the whole-query bonus), the exact flag and final scores of `docs` (in the index's scratch
 * arrays). With `shown`, a query ranked by calc_rank_and (per product, the costly rank) is ranked only where the
 * answer may show the row, as a search engine's top-k retrieval skips documents whose score bound cannot reach
 * the k-th best: rows are ranked by groups of one exact flag and one bound ((RANK_AND_BOUND + bonus) x multiplier),
 * best first, until the next group's bound is below the k-th ranked row; the rows left have UNRANKED scores.
 */
export function scoreRows(
  index: ProductIndex,
  doc: IndexDoc,
  search: ProductSearch,
  queries: ScoringQueries,
  docs: Int32Array,
  shown?: ShownRows,
) {
  const { ranked, exact, pairs } = queries;
  const exactDocs = exact ? new Ascending(matchingAmong(doc, exact, docs)) : null;
  const pairDocs = pairs.map((pair) => new Ascending(matchingAmong(doc, pair, docs)));
  const scratch = scratchOf(index);
  const rows = docs.length;
  const text = scratch.text.subarray(0, rows);
  const final = scratch.final.subarray(0, rows);
  const exactFlags = scratch.exact.subarray(0, rows);
  const bonuses = scratch.bonus.subarray(0, rows);
  const multiplier = scratch.multiplier.subarray(0, rows);
  // Products titled exactly as the query reads (the statement compares each row's title; here they are looked up).
  const titledDocs = titleBonus(search) ? new Ascending(productsTitled(index, search.titleText)) : null;
  const multipliers = new Map<number, number>();
  for (const [id, value] of search.multipliers) {
    const position = positionOf(index, id);
    if (position !== undefined) multipliers.set(position, value);
  }
  const share = 0.5 / Math.max(1, search.pairs.length);
  for (let r = 0; r < rows; r++) {
    const position = docs[r];
    // The parts of wholeQueryBonus, summed left to right as the statement adds them.
    let bonus = 0;
    let first = true;
    if (titledDocs !== null) {
      bonus = titledDocs.has(position) ? 1 : 0;
      first = false;
    }
    for (const pairDoc of pairDocs) {
      const part = pairDoc.has(position) ? share : 0;
      bonus = first ? part : bonus + part;
      first = false;
    }
    bonuses[r] = bonus;
    multiplier[r] = multipliers.get(position) ?? 1;
    exactFlags[r] = exactDocs === null || exactDocs.has(position) ? 1 : 0;
  }
  // A multiplier of 1 leaves the text score as it is (x * 1 is x).
  const score = (r: number) => {
    text[r] = Math.fround(text[r]) + bonuses[r];
    final[r] = text[r] * multiplier[r];
  };
  // Ranked per product (calc_rank_and) only when two of its operands occur in the rows; else from the postings or
  // all alike, cheap either way.
  const byPairs = ranked.root !== null && !ranksByOr(ranked) && pairsIn(doc, ranked, docs);
  const bounded =
    byPairs &&
    shown !== undefined &&
    shown.count < rows / 2 &&
    RANK_AND_BOUND !== Infinity &&
    [...multipliers.values()].every((value) => value >= 0);
  if (
    !bounded ||
    !rankShown(doc, ranked, docs, shown, { text, final, exact: exactFlags, bonuses, multiplier }, score)
  ) {
    ranksOf(index, doc, ranked, docs, text, byPairs);
    for (let r = 0; r < rows; r++) score(r);
  }
  return { text, final, exact: exactFlags };
}

/** Whether a product titled as the query reads earns a bonus (a title of two words or more). */
const titleBonus = (search: ProductSearch) => search.titleText.includes(' ');

/** Whether any product can earn a whole-query bonus (a title as the query reads, a pair of its words). */
export const hasBonus = (search: ProductSearch) => titleBonus(search) || search.pairs.length > 0;

/** Whether two of the query's distinct operands occur in the ascending `rows` (calc_rank_and has pairs to sum). */
function pairsIn(doc: IndexDoc, query: TsQuery, rows: Int32Array): boolean {
  doc.prepare(query);
  return operandsInRows(doc, query, rows, 2) >= 2;
}

/** At most this many groups (distinct exact flags and bounds, from merchandising multipliers) are ranked by groups. */
const MAX_GROUPS = 32;

/**
 * scoreRows' bounded ranking: ranks (and scores) the rows `shown` may hold, the others UNRANKED; false (nothing
 * written) when the rows fall into more than MAX_GROUPS groups.
 */
function rankShown(
  doc: IndexDoc,
  query: TsQuery,
  docs: Int32Array,
  shown: ShownRows,
  scores: {
    text: Float64Array;
    final: Float64Array;
    exact: Uint8Array;
    bonuses: Float64Array;
    multiplier: Float64Array;
  },
  score: (r: number) => void,
): boolean {
  const { text, final, exact, bonuses, multiplier } = scores;
  // The unpinned rows' groups by exact flag and bound; pinned rows are shown whatever they score.
  const flags: number[] = [];
  const bounds: number[] = [];
  const groupOf = new Uint8Array(docs.length);
  for (let r = 0; r < docs.length; r++) {
    if (shown.pin[r] === 1) continue;
    const bound = (RANK_AND_BOUND + bonuses[r]) * multiplier[r];
    let group = 0;
    while (group < flags.length && (flags[group] !== exact[r] || bounds[group] !== bound)) group++;
    if (group === flags.length) {
      if (group === MAX_GROUPS) return false;
      flags.push(exact[r]);
      bounds.push(bound);
    }
    groupOf[r] = group;
  }
  const rank = (r: number) => {
    text[r] = tsRank(RANK_WEIGHTS, doc.at(docs[r]), query);
    score(r);
  };
  for (let r = 0; r < docs.length; r++) {
    if (shown.pin[r] === 1) rank(r);
    else text[r] = final[r] = UNRANKED;
  }
  const groups = flags.map((_, group) => group).sort((a, b) => flags[b] - flags[a] || bounds[b] - bounds[a]);
  const order = (a: number, b: number) => exact[b] - exact[a] || final[b] - final[a] || docs[a] - docs[b];
  const ranked: number[] = [];
  for (const group of groups) {
    if (ranked.length >= shown.count) {
      const kth = kthOf(ranked, shown.count, order);
      if (flags[group] < exact[kth] || (flags[group] === exact[kth] && bounds[group] < final[kth])) break;
    }
    // A group's rows in ascending order (the document's cursors move forward within it).
    for (let r = 0; r < docs.length; r++) {
      if (groupOf[r] !== group || shown.pin[r] === 1) continue;
      rank(r);
      ranked.push(r);
    }
  }
  return true;
}

/** The `count`-th of `rows` (count <= rows.length) in `order`. */
function kthOf(rows: readonly number[], count: number, order: (a: number, b: number) => number): number {
  const top = topRows(new Uint8Array(0), count, order, rows);
  return top[count - 1];
}

/** The first `count` unpinned rows in `order` (of `among`, default every row of `pin`), without sorting them all. */
export function topRows(
  pin: Uint8Array,
  count: number,
  order: (a: number, b: number) => number,
  among?: readonly number[],
): number[] {
  const top: number[] = [];
  if (count <= 0) return top;
  const length = among ? among.length : pin.length;
  for (let i = 0; i < length; i++) {
    const row = among ? among[i] : i;
    if (pin[row] === 1) continue;
    if (top.length === count && order(row, top[count - 1]) >= 0) continue;
    let at = top.length === count ? count - 1 : top.length;
    while (at > 0 && order(row, top[at - 1]) < 0) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = row;
  }
  return top;
}
