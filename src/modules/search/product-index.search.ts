/**
 * The product search's steps answered from a project's in-process index (product-index.ts), as the statements
 * of search.sql.ts answer them: the same tsqueries (compiled by PostgreSQL, matched and ranked here exactly as
 * PostgreSQL matches and ranks them, see engine/), the same filters, order, totals and facets.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import {
  decodeTsQuery,
  tsMatches,
  type TsDoc,
  type TsNode,
  type TsOperand,
  type TsQuery,
} from './engine/pg-tsquery.js';
import { NO_PAIRS_RANK, ranksByOr, rankOrFromSum, sortedUniqueOperands, tsRank } from './engine/pg-tsrank.js';
import { FACET_RECORD, RANK_WEIGHTS, positionOf, productsTitled, type ProductIndex } from './product-index.js';
import { compareCodePoints, lowerBound } from './suggest-index.text.js';
import {
  candidatesSql,
  levelGroups,
  liveHead,
  pairSql,
  type FacetsJson,
  type ProductFilters,
  type ProductRowJson,
  type ProductSearch,
  type ProductSearchResult,
  type SearchEngine,
} from './search.sql.js';
import { clauseSql, querySql } from './tsquery.js';

const FACET_VALUES = 50;

/**
 * Compiled tsqueries by their SQL (text search configurations do not change while the process runs), at most
 * `limit`, least recently used out. A statement's text is kept once per shape (its values apart), so an entry
 * costs its values and its tsquery, not the text (a long-tail of new queries held megabytes of texts).
 */
export class CompiledTsQueries {
  private readonly queries = new Map<string, TsQuery>();
  private readonly shapes = new Map<string, number>();
  /** Never reused: a key made before the shapes started afresh cannot name another statement's text. */
  private nextShape = 0;

  constructor(private readonly limit: number) {}

  /**
   * The tsqueries of `sqls` as PostgreSQL builds them, in one round trip for those not compiled yet; what was
   * found before the round trip is answered even if other searches' compilations evicted it meanwhile.
   */
  async compile(ctx: Ctx, sqls: Prisma.Sql[]): Promise<TsQuery[]> {
    const keys = sqls.map((sql) => `${this.shapeOf(sql.sql)}|${JSON.stringify(sql.values)}`);
    const found = new Map<string, TsQuery>();
    for (const key of keys) {
      const query = this.queries.get(key);
      if (!query) continue;
      found.set(key, query);
      this.queries.delete(key); // most recently used last
      this.queries.set(key, query);
    }
    const missing = [...new Set(keys.filter((key) => !found.has(key)))];
    if (missing.length > 0) {
      const bySql = new Map(keys.map((key, i) => [key, sqls[i]]));
      const [row] = await ctx.db.$queryRaw<Array<{ queries: Uint8Array[] }>>`
        SELECT ARRAY[${Prisma.join(missing.map((key) => Prisma.sql`tsquerysend(${bySql.get(key)!})`))}]::bytea[] AS queries`;
      missing.forEach((key, i) => {
        const query = decodeTsQuery(row.queries[i]);
        this.queries.set(key, query);
        found.set(key, query);
      });
      for (const oldest of this.queries.keys()) {
        if (this.queries.size <= this.limit) break;
        this.queries.delete(oldest);
      }
    }
    return keys.map((key) => found.get(key)!);
  }

  /** A number per statement text; past `limit` texts (queries of ever new forms) the numbering starts afresh, with the memo. */
  private shapeOf(text: string): number {
    let shape = this.shapes.get(text);
    if (shape === undefined) {
      if (this.shapes.size >= this.limit) {
        this.shapes.clear();
        this.queries.clear();
      }
      this.shapes.set(text, (shape = this.nextShape++));
    }
    return shape;
  }
}

// A memo per project (the most recently searched MEMO_PROJECTS, 1,000 tsqueries each), so one project's long tail of
// new queries never pushes another project's compiled tsqueries out.
const MEMO_PROJECTS = 128;
const compiledByProject = new Map<string, CompiledTsQueries>();
const compile = (ctx: Ctx, sqls: Prisma.Sql[]) => {
  const projectId = ctx.project.id;
  let memo = compiledByProject.get(projectId);
  if (memo)
    compiledByProject.delete(projectId); // most recently used last
  else memo = new CompiledTsQueries(1_000);
  compiledByProject.set(projectId, memo);
  if (compiledByProject.size > MEMO_PROJECTS) compiledByProject.delete(compiledByProject.keys().next().value!);
  return memo.compile(ctx, sqls);
};

/** An operand's lexemes (positions in the lexicon) and, for at most CURSOR_LEXEMES of them, a cursor per lexeme into its postings. */
interface OperandLexemes {
  low: number;
  high: number;
  cursors: Int32Array | null;
  /** The pass the cursors belong to (IndexDoc.pass); stale cursors start again. */
  pass: number;
}

const CURSOR_LEXEMES = 16;

/**
 * A product of the index as the matcher and ranker read it, its operands resolved to lexeme ranges once per query.
 * Its entries are postings: products visited in ascending order find an operand's entries by moving a cursor along
 * each of its lexemes' postings (sequential reads), and read their positions, which lie in posting order.
 */
class IndexDoc implements TsDoc {
  private doc = -1;
  private pass = 0;
  private readonly ranges = new Map<TsOperand, OperandLexemes>();
  found = new Int32Array(CURSOR_LEXEMES);

  readonly positionValues: Uint16Array;

  constructor(readonly index: ProductIndex) {
    this.positionValues = index.positions;
  }

  /** Resolves the operands of `query` (the lexemes each one matches: one, or a prefix's range). */
  prepare(query: TsQuery): void {
    for (const operand of query.operands) {
      if (this.ranges.has(operand)) continue;
      const low = lowerBound(this.index.lexemes, operand.lexeme);
      let high = low;
      if (operand.prefix) {
        while (high < this.index.lexemes.length && this.index.lexemes[high].startsWith(operand.lexeme)) high++;
      } else if (high < this.index.lexemes.length && this.index.lexemes[high] === operand.lexeme) high++;
      const cursors = high - low <= CURSOR_LEXEMES ? new Int32Array(high - low) : null;
      this.ranges.set(operand, { low, high, cursors, pass: -1 });
    }
  }

  /** The lexemes (positions in the lexicon) the operand matches. */
  range(operand: TsOperand): { low: number; high: number } {
    return this.ranges.get(operand)!;
  }

  /**
   * The products holding any lexeme of the operand with a position of an allowed `weight` (the operand's; 0: any),
   * ascending; kept per index, so operands with the same lexemes and weights (the english and exact forms often
   * agree) share one array.
   */
  postings(operand: TsOperand, weight = operand.weight): Int32Array {
    const { low, high } = this.ranges.get(operand)!;
    return weight === 0 && high - low <= 1
      ? lexemePostingsOf(this.index, low, high)
      : mergedPostings(this.index, low, high, weight);
  }

  /** Moves to product `doc`; a product before the last one starts a new pass (every cursor from the start). */
  at(doc: number): this {
    if (doc < this.doc) this.pass++;
    this.doc = doc;
    return this;
  }

  get size(): number {
    return this.index.docEntries[this.doc + 1] - this.index.docEntries[this.doc];
  }

  find(operand: TsOperand): number {
    const lexemes = this.ranges.get(operand)!;
    const { low, high, cursors } = lexemes;
    if (low === high) return 0;
    if (cursors === null) return this.findInEntries(low, high);
    const { lexemePostings, postingDocs } = this.index;
    if (lexemes.pass !== this.pass) {
      for (let i = 0; i < cursors.length; i++) cursors[i] = lexemePostings[low + i];
      lexemes.pass = this.pass;
    }
    const doc = this.doc;
    let count = 0;
    for (let i = 0; i < cursors.length; i++) {
      const end = lexemePostings[low + i + 1];
      let p = cursors[i];
      if (p < end && postingDocs[p] < doc) p = lowerBoundFrom(postingDocs, doc, p, end);
      cursors[i] = p;
      if (p < end && postingDocs[p] === doc) this.found[count++] = p;
    }
    return count;
  }

  /**
   * find for an operand of many lexemes (a short prefix): the product's entries in range, by binary search, and
   * each one's posting by a binary search of its lexeme's postings.
   */
  private findInEntries(low: number, high: number): number {
    const { docEntries, entryLexemes, lexemePostings, postingDocs } = this.index;
    const last = docEntries[this.doc + 1];
    let [a, b] = [docEntries[this.doc], last];
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (entryLexemes[mid] < low) a = mid + 1;
      else b = mid;
    }
    let count = 0;
    for (let e = a; e < last && entryLexemes[e] < high; e++) {
      if (count === this.found.length) {
        const grown = new Int32Array(Math.max(16, this.found.length * 2));
        grown.set(this.found);
        this.found = grown;
      }
      const lexeme = entryLexemes[e];
      this.found[count++] = lowerBoundOf(postingDocs, this.doc, lexemePostings[lexeme], lexemePostings[lexeme + 1]);
    }
    return count;
  }

  positionsStart(posting: number): number {
    return this.index.postingPositions[posting];
  }

  positionsEnd(posting: number): number {
    return this.index.postingPositions[posting + 1];
  }
}

/** The postings arrays kept across answers (what is computed from one may be kept with it). */
const keptLists = new WeakSet<Int32Array>();

/** Per index, the postings of single lexemes as arrays kept across answers (so what is computed from one, its counts, can be kept with it). */
const lexemeLists = new WeakMap<ProductIndex, Map<number, Int32Array>>();

function lexemePostingsOf(index: ProductIndex, low: number, high: number): Int32Array {
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
const keptByIndex = new WeakMap<ProductIndex, { lists: Map<string, Int32Array>; size: number }>();
const MAX_MERGED_POSTINGS = 1_000_000;

/** The products holding any lexeme of [low, high) with a position of an allowed `weight` (0: any), ascending (kept for the next search). */
function mergedPostings(index: ProductIndex, low: number, high: number, weight: number): Int32Array {
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

/** Numbers for kept postings arrays, so a union of two can be kept by theirs. */
const keptIds = new WeakMap<Int32Array, number>();
let nextKeptId = 0;

/**
 * The union of two postings arrays; kept per index when both are kept (a word with its stems, exact form and
 * synonyms is one set of products for every search of it, as an engine keeps a term's expansion).
 */
function unionOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
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
function intersectionOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
  const [idA, idB] = [keptIds.get(a), keptIds.get(b)];
  if (idA === undefined || idB === undefined || a === b) return intersect(a, b);
  return keptPostings(index, `${Math.min(idA, idB)}&${Math.max(idA, idB)}`, () => intersect(a, b));
}

/** The products of `a` not in `b` (both ascending); kept when both are kept lists, as intersectionOf is. */
function differenceOf(index: ProductIndex, a: Int32Array, b: Int32Array): Int32Array {
  const [idA, idB] = [keptIds.get(a), keptIds.get(b)];
  if (idA === undefined || idB === undefined) return difference(a, b);
  return keptPostings(index, `${idA}-${idB}`, () => difference(a, b));
}

/** The postings kept under `key` in the index's bounded cache (most recently used last), computed when absent. */
function keptPostings(index: ProductIndex, key: string, compute: () => Int32Array): Int32Array {
  let cache = keptByIndex.get(index);
  if (!cache) keptByIndex.set(index, (cache = { lists: new Map(), size: 0 }));
  const known = recentlyUsed(cache.lists, key);
  if (known) return known;
  const docs = compute();
  for (const [oldest, list] of cache.lists) {
    if (cache.size + docs.length <= MAX_MERGED_POSTINGS) break;
    cache.lists.delete(oldest);
    cache.size -= list.length;
  }
  cache.lists.set(key, docs);
  cache.size += docs.length;
  keep(docs);
  return docs;
}

/** The buffer sets are computed into (collectedSet), grown to the largest bound asked. */
let setBuffer = new Int32Array(0);

/**
 * The first values `fill` writes to a buffer of at least `size` (it answers how many), copied out at their size: a set
 * allocates its own size only, not a buffer at its bound too (the long tail's searches allocated 60 % of their
 * typed arrays so). One buffer serves every set, as `fill` runs synchronously and computes no other set.
 */
function collectedSet(size: number, fill: (out: Int32Array) => number): Int32Array {
  if (setBuffer.length < size) setBuffer = new Int32Array(size);
  return setBuffer.slice(0, fill(setBuffer));
}

function keep(docs: Int32Array): void {
  if (keptLists.has(docs)) return;
  keptLists.add(docs);
  keptIds.set(docs, nextKeptId++);
}

function unique(sorted: Int32Array): Int32Array {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.subarray(0, n);
}

/** The products in both ascending lists: merged when their sizes are alike, the shorter one's looked up in the longer (galloping) when not. */
function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (a === b) return a;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return collectedSet(short.length, (out) => {
    let n = 0;
    if (short.length * SKEWED < long.length) {
      for (let i = 0, j = 0; i < short.length && j < long.length; i++) {
        j = lowerBoundFrom(long, short[i], j);
        if (j < long.length && long[j] === short[i]) out[n++] = short[i];
      }
      return n;
    }
    let [i, j] = [0, 0];
    while (i < short.length && j < long.length) {
      if (short[i] < long[j]) i++;
      else if (short[i] > long[j]) j++;
      else {
        out[n++] = short[i];
        i++;
        j++;
      }
    }
    return n;
  });
}

/** Lists this many times longer than the other are searched rather than merged (a search costs a few steps per product). */
const SKEWED = 8;

function union(a: Int32Array, b: Int32Array): Int32Array {
  if (a === b) return a;
  return collectedSet(a.length + b.length, (out) => {
    let [i, j, n] = [0, 0, 0];
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i] < b[j])) out[n++] = a[i++];
      else if (i >= a.length || b[j] < a[i]) out[n++] = b[j++];
      else {
        out[n++] = a[i++];
        j++;
      }
    }
    return n;
  });
}

const roundHalfEven = (x: number) => {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
};

/** The products of the filters and not hidden, as a test per product (null: every product). */
function admitted(index: ProductIndex, search: ProductSearch): ((doc: number) => boolean) | null {
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

/** A set of products as the postings give it: `docs` ascending (null: every product); `exact` when no product of it fails the query. */
interface DocSet {
  docs: Int32Array | null;
  exact: boolean;
  /** For a NOT: the set it negates. */
  negated?: DocSet;
}

function difference(a: Int32Array, b: Int32Array): Int32Array {
  return collectedSet(a.length, (out) => {
    let [j, n] = [0, 0];
    for (let i = 0; i < a.length; i++) {
      while (j < b.length && b[j] < a[i]) j++;
      if (j >= b.length || b[j] !== a[i]) out[n++] = a[i];
    }
    return n;
  });
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
function matchingDocs(index: ProductIndex, doc: IndexDoc, query: TsQuery): Int32Array {
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
function queryIdOf(query: TsQuery): number {
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

/** The positions 0..count-1. */
function everyProduct(count: number): Int32Array {
  const docs = new Int32Array(count);
  for (let i = 0; i < count; i++) docs[i] = i;
  return docs;
}

/** `values(i)` for i in 0..count-1, as an Int32Array (a loop: TypedArray.from with a map function is slow). */
function int32Of(count: number, values: (i: number) => number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = values(i);
  return out;
}

/** The products of the ascending `among` matching `query` (verified one by one only there, where the postings are not exact). */
function matchingAmong(doc: IndexDoc, query: TsQuery, among: Int32Array): Int32Array {
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

/** Membership in an ascending list of products, asked in ascending order (a cursor, no per-product array). */
class Ascending {
  private at = 0;

  constructor(private readonly docs: Int32Array) {}

  has(position: number): boolean {
    while (this.at < this.docs.length && this.docs[this.at] < position) this.at++;
    return this.at < this.docs.length && this.docs[this.at] === position;
  }
}

/** The first index of the ascending `docs` in [low, high) whose product is at least `position` (binary search; high when none). */
function lowerBoundOf(docs: Int32Array, position: number, low = 0, high = docs.length): number {
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (docs[mid] < position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether the ascending `docs` hold `position`. */
function holds(docs: Int32Array, position: number): boolean {
  const at = lowerBoundOf(docs, position);
  return at < docs.length && docs[at] === position;
}

/** How many of the query's distinct operands (any weight, as calc_rank finds them) occur in some of the ascending `rows`, counted up to `enough`. */
function operandsInRows(doc: IndexDoc, query: TsQuery, rows: Int32Array, enough: number): number {
  let present = 0;
  for (const operand of sortedUniqueOperands(query))
    if (sharesAny(rows, doc.postings(operand, 0)) && ++present >= enough) break;
  return present;
}

/** Whether two ascending lists have a product in common. */
function sharesAny(a: Int32Array, b: Int32Array): boolean {
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i = lowerBoundFrom(a, b[j], i + 1);
    else if (a[i] > b[j]) j = lowerBoundFrom(b, a[i], j + 1);
    else return true;
  }
  return false;
}

/** lowerBoundOf in [from, end), galloping first: a few steps when the product is near, a binary search when it is far. */
function lowerBoundFrom(docs: Int32Array, position: number, from: number, end = docs.length): number {
  let step = 1;
  let low = from;
  while (low + step < end && docs[low + step] < position) {
    low += step;
    step *= 2;
  }
  return lowerBoundOf(docs, position, low, Math.min(low + step, end));
}

/**
 * calc_rank_or ranks kept per set of products (arrays kept across answers: one lexeme's or prefix's postings) and
 * operands, keyed by the set's number (never reused), least recently used out past the index's bound. Kept as
 * float4, exactly: calc_rank_or answers a float4 (rankOrFromSum rounds to one). Kept per index, so one project's
 * searches never push another project's ranks (or impact orders, below) out; an index replaced takes its own along.
 */
interface RankedByIndex {
  ranks: Map<string, Float32Array>;
  rankCount: number;
  maxRanks: number;
  orders: Map<string, ImpactOrder>;
  maxOrders: number;
}
const rankedByIndex = new WeakMap<ProductIndex, RankedByIndex>();
/**
 * Ranks an index keeps at most (4 bytes each), each entry counted as ENTRY_RANKS more (its key and array): ten per
 * product, between 20,000 and 500,000 (about 2 MB at 50,000 products and more).
 */
const MIN_KEPT_RANKS = 20_000;
const MAX_KEPT_RANKS = 500_000;
const ENTRY_RANKS = 64;

/** The index's kept ranks and impact orders, with its bounds (by its product count). */
function rankedOf(index: ProductIndex): RankedByIndex {
  let ranked = rankedByIndex.get(index);
  if (!ranked) {
    const products = index.ids.length;
    ranked = {
      ranks: new Map(),
      rankCount: 0,
      maxRanks: Math.min(MAX_KEPT_RANKS, Math.max(MIN_KEPT_RANKS, products * 10)),
      orders: new Map(),
      maxOrders: Math.min(MAX_IMPACT_ORDERS, Math.max(MIN_IMPACT_ORDERS, Math.ceil(products / 50))),
    };
    rankedByIndex.set(index, ranked);
  }
  return ranked;
}

/** The value of `key` in the insertion-ordered `map`, moved last (most recently used); undefined when absent. */
function recentlyUsed<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

/**
 * Keeps a copy of `ranks` under `key` for the index (absent: ranksOf keeps only after a miss, with no await between),
 * the least recently used out first while past the index's bound.
 */
function keepRanks(index: ProductIndex, key: string, ranks: Float64Array): void {
  const ranked = rankedOf(index);
  const cost = (kept: ArrayLike<number>) => kept.length + ENTRY_RANKS;
  if (cost(ranks) > ranked.maxRanks) return;
  for (const [oldest, kept] of ranked.ranks) {
    if (ranked.rankCount + cost(ranks) <= ranked.maxRanks) break;
    ranked.ranks.delete(oldest);
    ranked.rankCount -= cost(kept);
  }
  ranked.ranks.set(key, new Float32Array(ranks));
  ranked.rankCount += cost(ranks);
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
  const kept = key === undefined ? undefined : recentlyUsed(rankedOf(index).ranks, key);
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
interface Rows {
  docs: Int32Array;
  pin: Uint8Array;
  exact: Uint8Array;
  text: Float64Array;
  final: Float64Array;
  matched: Int32Array;
  head: Uint8Array;
}

/** The tsqueries a scoring reads: the ranked one (the full query, or a relaxation level's candidates), the exact form's (null without corrections) and the pairs'. */
interface ScoringQueries {
  ranked: TsQuery;
  exact: TsQuery | null;
  pairs: TsQuery[];
}

/** Compiles `ranked` with the exact form's and the pairs' tsqueries and `others`, in one round trip at most. */
async function scoringQueries(ctx: Ctx, search: ProductSearch, ranked: Prisma.Sql, others: Prisma.Sql[]) {
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

function scratchOf(index: ProductIndex) {
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
function scoreRows(
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
const hasBonus = (search: ProductSearch) => titleBonus(search) || search.pairs.length > 0;

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
function topRows(
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

/** The top values of a facet: counts by value, the 50 most frequent (ties by value). */
function topValues(counts: Int32Array, names: readonly string[]) {
  const values: Array<{ value: string; count: number }> = [];
  for (let v = 0; v < counts.length; v++) if (counts[v] > 0) values.push({ value: names[v], count: counts[v] });
  return values.sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value)).slice(0, FACET_VALUES);
}

/**
 * Counts kept per set of products: an answer whose products are exactly one lexeme's or one prefix's postings (a
 * one-word search without filters) counts them once per index, as an engine keeps facet counts per term.
 */
const countsBySet = new WeakMap<Int32Array, ReturnType<typeof countProducts>>();

/** The facet counts, in-stock count and price bounds of an answer's products. */
function countsOf(index: ProductIndex, docs: Int32Array) {
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

/** Rows an impact order keeps at most: the first five pages of twenty. */
const IMPACT_ORDER_ROWS = 100;
/** Impact orders an index keeps at most (about 2 kB each), least recently used out: one per 50 products, 50 to 1,000. */
const MIN_IMPACT_ORDERS = 50;
const MAX_IMPACT_ORDERS = 1_000;

/** The first rows of a set in one ranking's order (exact form first, then the score, then the product) and their scores. */
interface ImpactOrder {
  rows: Int32Array;
  text: Float64Array;
  final: Float64Array;
  exact: Uint8Array;
  /** Every row of the set is in `rows`. */
  complete: boolean;
}

/*
 * Impact orders by set and ranking (per index, in rankedOf), as a search engine keeps a term's postings in the order
 * of their scores so that a one-term query's first pages are read, not ranked: kept for answers ranked by their
 * tsqueries alone (no whole-query bonus, no merchandising multiplier, no pin) over a kept set, keyed by the set's and
 * the tsqueries' numbers.
 */

/** The key of the strict answer's impact order; undefined when its order depends on more than its tsqueries and set. */
function impactOrderKey(search: ProductSearch, queries: ScoringQueries, docs: Int32Array): string | undefined {
  const setId = keptIds.get(docs);
  if (setId === undefined || search.pinned.length > 0 || search.multipliers.size > 0 || hasBonus(search))
    return undefined;
  return `${setId}|${queryIdOf(queries.ranked)}|${queries.exact ? queryIdOf(queries.exact) : ''}`;
}

/** Whether `order` holds the first `count` rows of its set. */
const holdsFirst = (order: ImpactOrder, count: number) => order.complete || order.rows.length >= count;

/** Keeps the first IMPACT_ORDER_ROWS of `rows` (every one ranked, none pinned) in `order` under `key`, for the index. */
function keepImpactOrder(
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
  const { orders, maxOrders } = rankedOf(index);
  if (orders.size >= maxOrders) orders.delete(orders.keys().next().value!);
  orders.set(key, kept);
  return kept;
}

/** The rows of a strict answer over `docs` whose first rows are `known` (their scores written; every row matched). */
function rowsOfImpactOrder(index: ProductIndex, docs: Int32Array, known: ImpactOrder, clauseCount: number): Rows {
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

function facetsOf(index: ProductIndex, counts: ReturnType<typeof countsOf>): Omit<FacetsJson, 'in_stock' | 'price'> {
  return {
    product_type: topValues(counts.types, index.types),
    tag: topValues(counts.tags, index.tags),
    collection: topValues(counts.collections, index.collectionIds)
      .flatMap(({ value: id, count }) => {
        const title = index.collectionTitles.get(id);
        return title === undefined ? [] : [{ id, title, count }];
      })
      .sort((a, b) => b.count - a.count || compareCodePoints(a.title, b.title) || compareCodePoints(a.id, b.id)),
  };
}

function rowOf(index: ProductIndex, search: ProductSearch, rows: Rows, r: number, missing: number[]): ProductRowJson {
  const position = rows.docs[r];
  const sale = index.salePrices[position];
  return {
    id: index.ids.at(position),
    title: index.titles.at(position),
    handle: index.handles.at(position),
    product_type: index.docTypes[position] === -1 ? null : index.types[index.docTypes[position]],
    image: index.images[position],
    price: roundHalfEven(index.prices[position] * search.rate),
    sale_price: Number.isNaN(sale) ? null : roundHalfEven(sale * search.rate),
    in_stock: index.inStock[position] === 1,
    text_score: rows.text[r],
    final_score: rows.final[r],
    matched_words: rows.matched[r],
    missing,
  };
}

/**
 * The answer's totals, page, pins and facets from its rows (the statements' `agg`, `page` and facet parts); `first`:
 * its first unpinned rows in `order` when known (up to the page's last, or every row).
 */
function answerOf(
  index: ProductIndex,
  search: ProductSearch,
  rows: Rows,
  order: (a: number, b: number) => number,
  relaxation: ProductSearchResult['relaxation'],
  strictTotal: number,
  missingOf: (r: number) => number[],
  first?: ArrayLike<number>,
): ProductSearchResult {
  const pinned: number[] = [];
  for (let r = 0; r < rows.docs.length; r++) if (rows.pin[r] === 1) pinned.push(r);
  const page = (first ? Array.from(first) : topRows(rows.pin, search.skip + search.take, order)).slice(search.skip);
  const total = rows.docs.length;
  const result: ProductSearchResult = {
    total,
    strictTotal,
    relaxation,
    hits: page.map((r) => rowOf(index, search, rows, r, missingOf(r))),
    pinned: pinned.map((r) => rowOf(index, search, rows, r, missingOf(r))),
  };
  if (search.facets) {
    const counts = countsOf(index, rows.docs);
    const { inStock, low, high } = counts;
    result.facets = {
      ...facetsOf(index, counts),
      in_stock: [
        ...(inStock > 0 ? [{ value: true, count: inStock }] : []),
        ...(total - inStock > 0 ? [{ value: false, count: total - inStock }] : []),
      ],
      price: {
        min: total > 0 ? roundHalfEven(low * search.rate) : null,
        max: total > 0 ? roundHalfEven(high * search.rate) : null,
      },
    };
  }
  return result;
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
function withPins(index: ProductIndex, search: ProductSearch, docs: Int32Array) {
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
function admittedCount(index: ProductIndex, search: ProductSearch, docs: Int32Array, enough = Infinity): number {
  const admit = admitted(index, search);
  if (admit === null) return Math.min(docs.length, enough);
  let count = 0;
  for (const position of docs) if (admit(position) && ++count >= enough) break;
  return count;
}

/** The product search's steps answered from `index` (see SearchEngine). */
export function indexEngine(ctx: Ctx, index: ProductIndex): SearchEngine {
  const doc = new IndexDoc(index);
  const clauses = (search: ProductSearch) => compile(ctx, search.full.must.map(clauseSql));
  return {
    async strict(search) {
      const { scoring } = await scoringQueries(ctx, search, querySql(search.full), []);
      const full = scoring.ranked;
      const matching = matchingDocs(index, doc, full);
      const { docs, pin } = withPins(index, search, matching);
      const clauseCount = search.full.must.length;
      const count = search.skip + search.take;
      const orderKey = impactOrderKey(search, scoring, docs);
      const known = orderKey === undefined ? undefined : recentlyUsed(rankedOf(index).orders, orderKey);
      if (known && holdsFirst(known, count)) {
        const rows = rowsOfImpactOrder(index, docs, known, clauseCount);
        return answerOf(
          index,
          search,
          rows,
          () => 0,
          null,
          docs.length,
          () => [],
          known.rows.subarray(0, count),
        );
      }
      // Every row ranked where an impact order is to be kept (the bounded ranking leaves rows off the page
      // unranked); a page past a kept order's rows is ranked as any other.
      const keeping = orderKey !== undefined && known === undefined;
      const shown = keeping ? undefined : { count, pin };
      const scores = scoreRows(index, doc, search, scoring, docs, shown);
      const matched = int32Of(docs.length, (r) => (pin[r] === 1 && !holds(matching, docs[r]) ? 0 : clauseCount));
      const rows: Rows = { docs, pin, ...scores, matched, head: new Uint8Array(0) };
      const order = (a: number, b: number) =>
        rows.exact[b] - rows.exact[a] || rows.final[b] - rows.final[a] || docs[a] - docs[b];
      const all = search.full.must.map((_, i) => i);
      const kept = keeping ? keepImpactOrder(index, orderKey, rows, order) : undefined;
      const first = kept && holdsFirst(kept, count) ? kept.rows.subarray(0, count) : undefined;
      return answerOf(
        index,
        search,
        rows,
        order,
        null,
        docs.length,
        (r) => (pin[r] === 1 && matched[r] === 0 ? all : []),
        first,
      );
    },

    async deadClauses(search, optional) {
      const compiledClauses = await clauses(search);
      const unpinned = { ...search, pinned: [] };
      return optional.filter(
        (i) => admittedCount(index, unpinned, matchingDocs(index, doc, compiledClauses[i]), 1) === 0,
      );
    },

    async levelFills(search, relax) {
      const [candidates] = await compile(ctx, [candidatesSql(search, relax)]);
      const matching = matchingDocs(index, doc, candidates);
      if (levelGroups(search, relax) !== null)
        return admittedCount(index, search, matching, search.relaxBelow) >= search.relaxBelow;
      const compiledClauses = await clauses(search);
      const head = liveHead(search, relax);
      // Per live clause, a cursor through its products among the candidates (both ascending).
      const lists = relax.live.map((i) => new Ascending(matchingAmong(doc, compiledClauses[i], matching)));
      const admit = admitted(index, search);
      let count = 0;
      for (const position of matching) {
        if (admit !== null && !admit(position)) continue;
        let worth = 0;
        relax.live.forEach((i, n) => (worth += Number(lists[n].has(position)) * (i === head ? 2 : 1)));
        if (worth >= relax.level && ++count >= search.relaxBelow) return true;
      }
      return false;
    },

    async relaxed(search, relax) {
      const must = search.full.must;
      const optional = must.map((_, i) => i).filter((i) => search.relaxable[i]);
      const required = must.length - optional.length;
      const { scoring, others: compiledClauses } = await scoringQueries(
        ctx,
        search,
        candidatesSql(search, relax),
        must.map(clauseSql),
      );
      const candidates = scoring.ranked;
      const matching = matchingDocs(index, doc, candidates);
      const headClause = search.head !== null && search.relaxable[search.head] ? optional.indexOf(search.head) : -1;
      const countsHead = liveHead(search, relax) !== null;
      const all = withPins(index, search, matching);
      // Per optional clause, the products of the answer's candidates matching it (ascending).
      const clauseDocs = optional.map((i) => matchingAmong(doc, compiledClauses[i], all.docs));
      // The statement's `c`, then `m`: products worth the level, and the pins (rows of `all`, with their figures,
      // in the index's scratch arrays until copied out).
      const { rows: keptRows, matched: keptMatched, head: keptHead } = scratchOf(index);
      let count = 0;
      // Cursors through the clauses' products and the candidates, as the answer's products come (ascending).
      const clauseCursors = clauseDocs.map((list) => new Ascending(list));
      const candidate = new Ascending(matching);
      for (let r = 0; r < all.docs.length; r++) {
        const position = all.docs[r];
        const pin = all.pin[r] === 1;
        let hits = 0;
        let head = 1;
        for (let n = 0; n < clauseCursors.length; n++) {
          const hit = Number(clauseCursors[n].has(position));
          hits += hit;
          if (n === headClause) head = hit;
        }
        const matched = (pin && !candidate.has(position) ? 0 : required) + hits;
        const worth = countsHead ? matched + head : matched;
        if (worth >= required + relax.level || pin) {
          keptRows[count] = r;
          keptMatched[count] = matched;
          keptHead[count++] = head;
        }
      }
      const docs = int32Of(count, (i) => all.docs[keptRows[i]]);
      const pin = new Uint8Array(count);
      for (let i = 0; i < count; i++) pin[i] = all.pin[keptRows[i]];
      const scores = scoreRows(index, doc, search, scoring, docs);
      const matched = keptMatched.slice(0, count);
      const head = keptHead.slice(0, count);
      const rows: Rows = { docs, pin, ...scores, matched, head };
      const order = (a: number, b: number) =>
        rows.exact[b] - rows.exact[a] ||
        Number(matched[b] === must.length) - Number(matched[a] === must.length) ||
        rows.head[b] - rows.head[a] ||
        matched[b] - matched[a] ||
        rows.final[b] - rows.final[a] ||
        docs[a] - docs[b];
      let strictTotal = 0;
      let minMatched = Infinity;
      for (let r = 0; r < docs.length; r++) {
        if (matched[r] === must.length || pin[r] === 1) strictTotal++;
        if (pin[r] === 0) minMatched = Math.min(minMatched, matched[r]);
      }
      const relaxation = {
        minMatched: Number.isFinite(minMatched) ? minMatched : required + relax.level,
        unmatched: relax.dead,
      };
      return answerOf(index, search, rows, order, relaxation, strictTotal, (r) =>
        optional.filter((_, n) => !holds(clauseDocs[n], docs[r])),
      );
    },
  };
}
