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
import { tsRank } from './engine/pg-tsrank.js';
import type { ProductIndex } from './product-index.js';
import { compareCodePoints, lowerBound } from './suggest-index.text.js';
import {
  candidatesSql,
  levelGroups,
  liveHead,
  pairSql,
  type FacetsJson,
  type ProductRowJson,
  type ProductSearch,
  type ProductSearchResult,
  type SearchEngine,
} from './search.sql.js';
import { clauseSql, querySql } from './tsquery.js';

// ts_rank's weights of D, C, B and A, as the statements pass them.
const WEIGHTS = [0.1, 0.3, 0.5, 1.0];
const FACET_VALUES = 50;

/** Compiled tsqueries by their SQL: text search configurations do not change while the process runs. */
const compiled = new Map<string, TsQuery>();
const MAX_COMPILED = 5_000;

/** The tsqueries of `sqls` as PostgreSQL builds them (one round trip for those not compiled yet). */
async function compile(ctx: Ctx, sqls: Prisma.Sql[]): Promise<TsQuery[]> {
  const keys = sqls.map((sql) => `${sql.sql}|${JSON.stringify(sql.values)}`);
  const missing = [...new Set(keys.filter((key) => !compiled.has(key)))];
  if (missing.length > 0) {
    const bySql = new Map(keys.map((key, i) => [key, sqls[i]]));
    const [row] = await ctx.db.$queryRaw<Array<{ queries: Uint8Array[] }>>`
      SELECT ARRAY[${Prisma.join(missing.map((key) => Prisma.sql`tsquerysend(${bySql.get(key)!})`))}]::bytea[] AS queries`;
    if (compiled.size + missing.length > MAX_COMPILED) compiled.clear();
    missing.forEach((key, i) => compiled.set(key, decodeTsQuery(row.queries[i])));
  }
  return keys.map((key) => compiled.get(key)!);
}

/** A product of the index as the matcher and ranker read it, its operands resolved to lexeme ranges once per query. */
class IndexDoc implements TsDoc {
  size = 0;
  private first = 0;
  private last = 0;
  private readonly ranges = new Map<TsOperand, { low: number; high: number }>();

  constructor(private readonly index: ProductIndex) {}

  /** Resolves the operands of `query` (the lexemes each one matches: one, or a prefix's range). */
  prepare(query: TsQuery): void {
    for (const operand of query.operands) {
      if (this.ranges.has(operand)) continue;
      const low = lowerBound(this.index.lexemes, operand.lexeme);
      let high = low;
      if (operand.prefix) {
        while (high < this.index.lexemes.length && this.index.lexemes[high].startsWith(operand.lexeme)) high++;
      } else if (high < this.index.lexemes.length && this.index.lexemes[high] === operand.lexeme) high++;
      this.ranges.set(operand, { low, high });
    }
  }

  /** The products holding any lexeme of the operand, ascending. */
  postings(operand: TsOperand): Int32Array {
    const { low, high } = this.ranges.get(operand)!;
    const { lexemePostings, postingDocs } = this.index;
    if (high - low === 1) return postingDocs.subarray(lexemePostings[low], lexemePostings[high]);
    const all = postingDocs.slice(lexemePostings[low], lexemePostings[high]).sort();
    return unique(all);
  }

  at(doc: number): this {
    this.first = this.index.docEntries[doc];
    this.last = this.index.docEntries[doc + 1];
    this.size = this.last - this.first;
    return this;
  }

  find(operand: TsOperand): { start: number; end: number } | null {
    const { low, high } = this.ranges.get(operand)!;
    if (low === high) return null;
    const lexemes = this.index.entryLexemes;
    let [a, b] = [this.first, this.last];
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (lexemes[mid] < low) a = mid + 1;
      else b = mid;
    }
    let end = a;
    while (end < this.last && lexemes[end] < high) end++;
    return end > a ? { start: a, end } : null;
  }

  positions(entry: number): Uint16Array {
    return this.index.positions.subarray(this.index.entryPositions[entry], this.index.entryPositions[entry + 1]);
  }
}

function unique(sorted: Int32Array): Int32Array {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.subarray(0, n);
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let [i, j, n] = [0, 0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else {
      out[n++] = a[i];
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

function union(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let [i, j, n] = [0, 0, 0];
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out[n++] = a[i++];
    else if (i >= a.length || b[j] < a[i]) out[n++] = b[j++];
    else {
      out[n++] = a[i++];
      j++;
    }
  }
  return out.subarray(0, n);
}

/** A superset of the products matching `node` from the postings (null: every product), ascending. */
function candidatesOf(doc: IndexDoc, node: TsNode | null): Int32Array | null {
  if (node === null) return new Int32Array(0);
  if (node.kind === 'val') return doc.postings(node);
  if (node.kind === 'not') return null;
  const right = candidatesOf(doc, node.right);
  const left = candidatesOf(doc, node.left!);
  if (node.kind === 'or') return left === null || right === null ? null : union(left, right);
  if (left === null) return right;
  if (right === null) return left;
  return intersect(left, right);
}

const roundHalfEven = (x: number) => {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
};

/** The products of the filters and not hidden, as a test per product. */
function admitted(index: ProductIndex, search: ProductSearch): (doc: number) => boolean {
  const { filters, rate } = search;
  const hidden = new Set(search.hidden.map((id) => index.positionsById.get(id)).filter((d) => d !== undefined));
  const type = filters.productType === undefined ? undefined : index.types.indexOf(filters.productType);
  const tag = filters.tag === undefined ? undefined : index.tags.indexOf(filters.tag);
  const collection = filters.collectionId === undefined ? undefined : index.collectionIds.indexOf(filters.collectionId);
  const holds = (values: Int32Array, starts: Int32Array, doc: number, value: number) => {
    for (let i = starts[doc]; i < starts[doc + 1]; i++) if (values[i] === value) return true;
    return false;
  };
  return (doc) => {
    if (hidden.has(doc)) return false;
    if (type !== undefined && index.docTypes[doc] !== type) return false;
    if (tag !== undefined && !holds(index.tagValues, index.docTags, doc, tag)) return false;
    if (collection !== undefined && !holds(index.collectionValues, index.docCollections, doc, collection)) return false;
    if (filters.inStock !== undefined && (index.inStock[doc] === 1) !== filters.inStock) return false;
    if (filters.priceMin !== undefined && roundHalfEven(index.prices[doc] * rate) < filters.priceMin) return false;
    if (filters.priceMax !== undefined && roundHalfEven(index.prices[doc] * rate) > filters.priceMax) return false;
    return true;
  };
}

/** A ranked row of the answer (the statements' `m`). */
interface Ranked {
  doc: number;
  pin: boolean;
  exact: boolean;
  textScore: number;
  finalScore: number;
  matched: number;
  /** Relaxed answers: whether it matches the head noun's clause; per optional clause, whether it matches. */
  head: boolean;
  hits: boolean[];
}

/** What a product's text score gets from the whole query (see wholeQueryBonus in search.sql.ts). */
function bonusOf(
  index: ProductIndex,
  search: ProductSearch,
  pairs: TsQuery[],
  doc: IndexDoc,
  position: number,
): number {
  const parts: number[] = [];
  if (search.titleText.includes(' ')) parts.push(index.titleWords[position] === search.titleText ? 1 : 0);
  const share = 0.5 / Math.max(1, search.pairs.length);
  for (const pair of pairs) parts.push(tsMatches(pair, doc) ? share : 0);
  let sum = parts.length > 0 ? parts[0] : 0;
  for (let i = 1; i < parts.length; i++) sum += parts[i];
  return sum;
}

/** The products matching `query` or pinned, admitted, ascending. */
function matchesOf(index: ProductIndex, doc: IndexDoc, query: TsQuery, search: ProductSearch) {
  doc.prepare(query);
  const admit = admitted(index, search);
  const candidates = candidatesOf(doc, query.root);
  const matching: number[] = [];
  const each = (position: number) => {
    if (admit(position) && tsMatches(query, doc.at(position))) matching.push(position);
  };
  if (candidates === null) for (let position = 0; position < index.ids.length; position++) each(position);
  else for (const position of candidates) each(position);
  const pins = search.pinned
    .map((id) => index.positionsById.get(id))
    .filter((position): position is number => position !== undefined && admit(position));
  return { matching, pins: new Set(pins) };
}

function rowOf(index: ProductIndex, search: ProductSearch, row: Ranked, missing: number[]): ProductRowJson {
  const sale = index.salePrices[row.doc];
  return {
    id: index.ids[row.doc],
    title: index.titles[row.doc],
    handle: index.handles[row.doc],
    product_type: index.docTypes[row.doc] === -1 ? null : index.types[index.docTypes[row.doc]],
    image: index.images[row.doc],
    price: roundHalfEven(index.prices[row.doc] * search.rate),
    sale_price: Number.isNaN(sale) ? null : roundHalfEven(sale * search.rate),
    in_stock: index.inStock[row.doc] === 1,
    text_score: row.textScore,
    final_score: row.finalScore,
    matched_words: row.matched,
    missing,
  };
}

/** The top values of a facet: counts by value, the 50 most frequent (ties by value). */
function topValues(counts: Map<number, number>, names: readonly string[]) {
  return [...counts]
    .map(([value, count]) => ({ value: names[value], count }))
    .sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value))
    .slice(0, FACET_VALUES);
}

function facetsOf(index: ProductIndex, rows: Ranked[]): Omit<FacetsJson, 'in_stock' | 'price'> {
  const types = new Map<number, number>();
  const tags = new Map<number, number>();
  const collections = new Map<number, number>();
  const add = (counts: Map<number, number>, value: number) => counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const { doc } of rows) {
    if (index.docTypes[doc] !== -1) add(types, index.docTypes[doc]);
    for (let i = index.docTags[doc]; i < index.docTags[doc + 1]; i++) add(tags, index.tagValues[i]);
    for (let i = index.docCollections[doc]; i < index.docCollections[doc + 1]; i++)
      add(collections, index.collectionValues[i]);
  }
  return {
    product_type: topValues(types, index.types),
    tag: topValues(tags, index.tags),
    collection: topValues(collections, index.collectionIds)
      .flatMap(({ value: id, count }) => {
        const title = index.collectionTitles.get(id);
        return title === undefined ? [] : [{ id, title, count }];
      })
      .sort((a, b) => b.count - a.count || compareCodePoints(a.title, b.title) || compareCodePoints(a.id, b.id)),
  };
}

/** The answer's totals, page, pins and facets from its ranked rows (the statements' `agg`, `page` and facet parts). */
function answerOf(
  index: ProductIndex,
  search: ProductSearch,
  rows: Ranked[],
  order: (a: Ranked, b: Ranked) => number,
  relaxation: ProductSearchResult['relaxation'],
  strictTotal: number,
  missingOf: (row: Ranked) => number[],
): ProductSearchResult {
  const page = rows
    .filter((row) => !row.pin)
    .sort(order)
    .slice(search.skip, search.skip + search.take);
  let inStock = 0;
  let [low, high] = [Infinity, -Infinity];
  for (const { doc } of rows) {
    inStock += index.inStock[doc];
    low = Math.min(low, index.prices[doc]);
    high = Math.max(high, index.prices[doc]);
  }
  const total = rows.length;
  const result: ProductSearchResult = {
    total,
    strictTotal,
    relaxation,
    hits: page.map((row) => rowOf(index, search, row, missingOf(row))),
    pinned: rows.filter((row) => row.pin).map((row) => rowOf(index, search, row, missingOf(row))),
  };
  if (search.facets) {
    result.facets = {
      ...facetsOf(index, rows),
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

const byRank = (a: Ranked, b: Ranked) =>
  Number(b.exact) - Number(a.exact) || b.finalScore - a.finalScore || a.doc - b.doc;

/** The product search's steps answered from `index` (see SearchEngine). */
export function indexEngine(ctx: Ctx, index: ProductIndex): SearchEngine {
  const doc = new IndexDoc(index);
  const clauses = async (search: ProductSearch) => compile(ctx, search.full.must.map(clauseSql));
  const scoring = async (search: ProductSearch) => {
    const [exact, ...pairs] = await compile(ctx, [
      search.exact ? querySql(search.exact) : Prisma.sql`''::tsquery`,
      ...search.pairs.map(pairSql),
    ]);
    for (const pair of pairs) doc.prepare(pair);
    if (search.exact) doc.prepare(exact);
    return { exact: search.exact ? exact : null, pairs };
  };
  const scored = (
    search: ProductSearch,
    query: TsQuery,
    scoring: { exact: TsQuery | null; pairs: TsQuery[] },
    position: number,
  ) => {
    doc.at(position);
    const textScore = Math.fround(tsRank(WEIGHTS, doc, query)) + bonusOf(index, search, scoring.pairs, doc, position);
    const multiplier = search.multipliers.get(index.ids[position]) ?? 1;
    return {
      exact: scoring.exact ? tsMatches(scoring.exact, doc) : true,
      textScore,
      finalScore: textScore * multiplier,
    };
  };
  return {
    async strict(search) {
      const [[full], scoring_] = await Promise.all([compile(ctx, [querySql(search.full)]), scoring(search)]);
      const { matching, pins } = matchesOf(index, doc, full, search);
      const clauseCount = search.full.must.length;
      const rows: Ranked[] = [];
      const seen = new Set<number>();
      for (const position of [...matching, ...pins]) {
        if (seen.has(position)) continue;
        seen.add(position);
        const matches = tsMatches(full, doc.at(position));
        rows.push({
          doc: position,
          pin: pins.has(position),
          ...scored(search, full, scoring_, position),
          matched: pins.has(position) && !matches ? 0 : clauseCount,
          head: true,
          hits: [],
        });
      }
      const all = search.full.must.map((_, i) => i);
      return answerOf(index, search, rows, byRank, null, rows.length, (row) =>
        row.matched === 0 && row.pin ? all : [],
      );
    },

    async deadClauses(search, optional) {
      const compiledClauses = await clauses(search);
      const dead: number[] = [];
      for (const i of optional) {
        const { matching } = matchesOf(index, doc, compiledClauses[i], { ...search, pinned: [] });
        if (matching.length === 0) dead.push(i);
      }
      return dead;
    },

    async levelFills(search, relax) {
      const [candidates] = await compile(ctx, [candidatesSql(search, relax)]);
      const { matching } = matchesOf(index, doc, candidates, { ...search, pinned: [] });
      if (levelGroups(search, relax) !== null) return matching.length >= search.relaxBelow;
      const compiledClauses = await clauses(search);
      for (const clause of compiledClauses) doc.prepare(clause);
      const head = liveHead(search, relax);
      let count = 0;
      for (const position of matching) {
        doc.at(position);
        let worth = 0;
        for (const i of relax.live) if (tsMatches(compiledClauses[i], doc)) worth += i === head ? 2 : 1;
        if (worth >= relax.level && ++count >= search.relaxBelow) return true;
      }
      return false;
    },

    async relaxed(search, relax) {
      const must = search.full.must;
      const optional = must.map((_, i) => i).filter((i) => search.relaxable[i]);
      const required = must.length - optional.length;
      const [[candidates], compiledClauses, scoring_] = await Promise.all([
        compile(ctx, [candidatesSql(search, relax)]),
        clauses(search),
        scoring(search),
      ]);
      for (const clause of compiledClauses) doc.prepare(clause);
      const { matching, pins } = matchesOf(index, doc, candidates, search);
      const headClause = search.head !== null && search.relaxable[search.head] ? search.head : null;
      const liveHeadClause = liveHead(search, relax);
      const rows: Ranked[] = [];
      const seen = new Set<number>();
      for (const position of [...matching, ...pins]) {
        if (seen.has(position)) continue;
        seen.add(position);
        doc.at(position);
        const candidate = tsMatches(candidates, doc);
        const pin = pins.has(position);
        const hits = optional.map((i) => tsMatches(compiledClauses[i], doc));
        const matched = (pin && !candidate ? 0 : required) + hits.filter(Boolean).length;
        const head = headClause === null ? true : hits[optional.indexOf(headClause)];
        const worth = liveHeadClause === null ? matched : matched + Number(head);
        if (!(worth >= required + relax.level || pin)) continue;
        rows.push({ doc: position, pin, ...scored(search, candidates, scoring_, position), matched, head, hits });
      }
      const order = (a: Ranked, b: Ranked) =>
        Number(b.exact) - Number(a.exact) ||
        Number(b.matched === must.length) - Number(a.matched === must.length) ||
        Number(b.head) - Number(a.head) ||
        b.matched - a.matched ||
        b.finalScore - a.finalScore ||
        a.doc - b.doc;
      const strictTotal = rows.filter((row) => row.matched === must.length || row.pin).length;
      const unpinned = rows.filter((row) => !row.pin);
      const minMatched = unpinned.reduce((least, row) => Math.min(least, row.matched), Infinity);
      const relaxation = {
        minMatched: unpinned.length > 0 ? minMatched : required + relax.level,
        unmatched: relax.dead,
      };
      return answerOf(index, search, rows, order, relaxation, strictTotal, (row) =>
        optional.filter((_, n) => !row.hits[n]),
      );
    },
  };
}
