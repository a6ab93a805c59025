/**
 * PostgreSQL 18's ts_rank(weights, tsvector, tsquery) (calc_rank in src/backend/utils/adt/tsrank.c), ported
 * with C's float arithmetic: Math.fround wherever C computes or stores a float, plain numbers where it uses
 * double (the literals, exp, sqrt, and `1.0 - ...`), so the answer is PostgreSQL's float4 bit for bit.
 */
import { compareCodePoints } from '../suggest-index.text.js';
import { pgQsort } from './pg-qsort.js';
import type { TsDoc, TsOperand, TsQuery } from './pg-tsquery.js';

const f = Math.fround;
const MAXENTRYPOS = 1 << 14;
/** calc_rank_and's stand-in for an entry without positions: one position MAXENTRYPOS - 1 of weight D. */
const POSNULL_AND: ArrayLike<number> = new Uint16Array([MAXENTRYPOS - 1]);
/** calc_rank_or's stand-in for an entry without positions: one position 0 of weight D. */
const POSNULL_OR: ArrayLike<number> = new Uint16Array([0]);

/** The rank PostgreSQL's ts_rank(weights::float4[], doc, query) answers (weights D, C, B, A), as the exact float4 value. */
export function tsRank(weights: readonly number[], doc: TsDoc, query: TsQuery): number {
  if (doc.size === 0 || query.items.length === 0) return 0;
  // getWeights: a negative weight means the default one.
  let changed = false;
  for (let i = 0; i < 4; i++) {
    const weight = f(weights[i]) >= 0 ? f(weights[i]) : DEFAULT_WEIGHTS[i];
    changed ||= !Object.is(w[i], weight);
    w[i] = weight;
  }
  if (changed || pairWeights === null) pairWeights = pairWeightsOf(w);
  const root = query.root!;
  const useAnd = root.kind === 'and' || root.kind === 'phrase';
  let res = useAnd ? rankAnd(doc, query) : rankOr(doc, query);
  if (res < 0) res = NO_PAIRS_RANK;
  return res;
}

/**
 * What ts_rank answers for a document (not empty) in which calc_rank_and finds no pair of positions of two
 * different operands: its sum never starts (-1), and calc_rank answers 1e-20 as a float.
 */
export const NO_PAIRS_RANK = f(1e-20);

const DEFAULT_WEIGHTS = [f(0.1), f(0.2), f(0.4), f(1.0)];
// The weights of the call in progress, as float4 (index = a position's weight: 0 = D ... 3 = A).
const w = new Float64Array(4);

// SortAndUniqItems depends on the query alone: kept per query, since a query ranks thousands of documents.
const uniqueOperandsOf = new WeakMap<TsQuery, TsOperand[]>();

/** SortAndUniqItems: the operands sorted by lexeme with PostgreSQL's (unstable) qsort, the first of each lexeme kept. */
export function sortedUniqueOperands(query: TsQuery): TsOperand[] {
  let unique = uniqueOperandsOf.get(query);
  if (unique) return unique;
  const sorted = query.operands.slice();
  if (sorted.length >= 2) pgQsort(sorted, 0, sorted.length, compareOperands);
  unique = [];
  for (const operand of sorted)
    if (unique.length === 0 || compareOperands(operand, unique[unique.length - 1]) !== 0) unique.push(operand);
  uniqueOperandsOf.set(query, unique);
  return unique;
}

function compareOperands(a: TsOperand, b: TsOperand): number {
  return compareCodePoints(a.lexeme, b.lexeme);
}

/**
 * word_distance: float4 of 1 / (1.005 + 0.05 e^(d / 1.5 - 2)), 1e-30 beyond 100, as a table of the 101 values.
 * V8's Math.exp differs from glibc's exp in the last bit for 11 of these arguments; the float4 results do not
 * (tests/integration/search/pg-text-search.test.ts checks that they survive an exp off by two units).
 */
const WORD_DISTANCE = Array.from({ length: 101 }, (_, d) => f(1.0 / (1.005 + 0.05 * Math.exp(d / 1.5 - 2))));
const FAR = f(1e-30);

function wordDistance(dist: number): number {
  return dist > 100 ? FAR : WORD_DISTANCE[dist];
}

// calc_rank_and's pos[]: per unique operand, the positions of the last entry seen of it, as
// lastValues[i][lastStart[i]..lastEnd[i]) (lastValues[i] null: not in the document). Ranges, not views: a view per
// entry was a fifth of a broad query's ranking.
let lastValues: Array<ArrayLike<number> | null> = [];
let lastStart = new Int32Array(0);
let lastEnd = new Int32Array(0);

/** calc_rank_and: every pair of positions of two different operands adds sqrt(w1 * w2 * word_distance) to a probabilistic sum. */
function rankAnd(doc: TsDoc, query: TsQuery): number {
  const items = sortedUniqueOperands(query);
  const size = items.length;
  if (size < 2) return rankOr(doc, query);
  if (lastValues.length < size) {
    lastValues = new Array<ArrayLike<number> | null>(size);
    lastStart = new Int32Array(size);
    lastEnd = new Int32Array(size);
  }
  lastValues.fill(null, 0, size);
  const values = doc.positionValues;
  let res = -1.0;
  for (let i = 0; i < size; i++) {
    const count = doc.find(items[i]);
    for (let n = 0; n < count; n++) {
      const entry = doc.found[n];
      let post = values;
      let start = doc.positionsStart(entry);
      let end = doc.positionsEnd(entry);
      if (start === end) {
        post = POSNULL_AND;
        start = 0;
        end = 1;
      }
      lastValues[i] = post;
      lastStart[i] = start;
      lastEnd[i] = end;
      for (let k = 0; k < i; k++) {
        const ct = lastValues[k];
        if (ct !== null) res = pairSum(res, post, start, end, ct, lastStart[k], lastEnd[k]);
      }
    }
  }
  return res;
}

// What two positions add in calc_rank_and, by their weights and distance (index (wa * 4 + wb) * 102 + min(dist, 101);
// 101 stands for every distance over 100): sqrt(w1 * w2 * word_distance) as C computes it, once per set of weights.
const DISTANCES = 102;
let pairWeights: Float64Array | null = null;

function pairWeightsOf(weights: ArrayLike<number>): Float64Array {
  const table = new Float64Array(16 * DISTANCES);
  for (let a = 0; a < 4; a++)
    for (let b = 0; b < 4; b++)
      for (let dist = 0; dist < DISTANCES; dist++)
        table[(a * 4 + b) * DISTANCES + dist] = f(Math.sqrt(f(f(weights[a] * weights[b]) * wordDistance(dist))));
  return table;
}

/** The inner loops of calc_rank_and over two position lists (post[postStart..postEnd), ct[ctStart..ctEnd)); returns the new float `res`. */
function pairSum(
  res: number,
  post: ArrayLike<number>,
  postStart: number,
  postEnd: number,
  ct: ArrayLike<number>,
  ctStart: number,
  ctEnd: number,
): number {
  const anyNull = post === POSNULL_AND || ct === POSNULL_AND;
  const table = pairWeights!;
  for (let l = postStart; l < postEnd; l++) {
    for (let p = ctStart; p < ctEnd; p++) {
      let dist = Math.abs((post[l] & 0x3fff) - (ct[p] & 0x3fff));
      if (dist === 0 && !anyNull) continue;
      if (dist === 0 || dist > 100) dist = DISTANCES - 1;
      const curw = table[((post[l] >> 14) * 4 + (ct[p] >> 14)) * DISTANCES + dist];
      res = res < 0 ? curw : f(1.0 - (1.0 - res) * (1.0 - curw));
    }
  }
  return res;
}

/** calc_rank_or: per matching entry, its weights summed with 1/i² damping, normalised; averaged over the unique operands. */
function rankOr(doc: TsDoc, query: TsQuery): number {
  const items = sortedUniqueOperands(query);
  const values = doc.positionValues;
  let res = 0.0;
  for (let i = 0; i < items.length; i++) {
    const count = doc.find(items[i]);
    for (let n = 0; n < count; n++) {
      const entry = doc.found[n];
      const start = doc.positionsStart(entry);
      const end = doc.positionsEnd(entry);
      res = f(res + (start === end ? entryAddend(w, POSNULL_OR, 0, 1) : entryAddend(w, values, start, end)));
    }
  }
  if (items.length > 0) res = f(res / items.length);
  return res;
}

/** What one entry (positions post[start..end)) adds to calc_rank_or's float sum (a double, before the sum rounds), with `weights` as float4 (D..A). */
function entryAddend(weights: ArrayLike<number>, post: ArrayLike<number>, start: number, end: number): number {
  let resj = 0.0;
  let wjm = -1.0;
  let jm = 0;
  for (let j = 0; j < end - start; j++) {
    const wj = weights[post[start + j] >> 14];
    resj = f(resj + f(wj / ((j + 1) * (j + 1))));
    if (wj > wjm) {
      wjm = wj;
      jm = j;
    }
  }
  return f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1)))) / 1.64493406685;
}

/**
 * What an entry with these positions (none: PostgreSQL's stand-in) adds to calc_rank_or's sum for `weights` (D..A):
 * an index may keep it per posting, and rankOrFromAddends then answers what tsRank answers for an OR-ranked query.
 */
export function orEntryAddend(weights: readonly number[], positions: ArrayLike<number>): number {
  const float = weights.map((weight, i) => (f(weight) >= 0 ? f(weight) : DEFAULT_WEIGHTS[i]));
  return positions.length === 0
    ? entryAddend(float, POSNULL_OR, 0, 1)
    : entryAddend(float, positions, 0, positions.length);
}

/** Whether tsRank ranks `query` with calc_rank_or (its root is no AND or phrase, or it has fewer than two distinct lexemes). */
export function ranksByOr(query: TsQuery): boolean {
  const root = query.root;
  if (root === null) return false;
  return !(root.kind === 'and' || root.kind === 'phrase') || sortedUniqueOperands(query).length < 2;
}

/**
 * calc_rank_or's result from a sum built as it builds it (`f(sum + addend)` per matching entry, operands in
 * sortedUniqueOperands order, entries in lexeme order): the average over the `operands` distinct operands.
 */
export function rankOrFromSum(operands: number, sum: number): number {
  return operands > 0 ? f(sum / operands) : sum;
}
