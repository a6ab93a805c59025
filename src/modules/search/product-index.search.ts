/**
 * The product search's steps answered from a project's in-process index (product-index.ts), as the statements
 * of search.sql.ts answer them: the same tsqueries (compiled by PostgreSQL, matched and ranked here exactly as
 * PostgreSQL matches and ranks them, see engine/), the same filters, order, totals and facets. The index is one or
 * two segments (ProductSegments): the index built last less its changed products, and the changed products' own
 * index; each step runs on each and their answers are merged (answers.ts: mergedAnswer).
 */
import type { Ctx } from '../../shared/context.js';
import { type AnswerPart, answerOf, mergedAnswer } from './index-engine/answers.js';
import { compile } from './index-engine/compiled-tsqueries.js';
import { admitted, admittedCount, withPins } from './index-engine/filters.js';
import { holdsFirst, impactOrderKey, keepImpactOrder, rowsOfImpactOrder } from './index-engine/impact-orders.js';
import { IndexDoc } from './index-engine/index-doc.js';
import { differenceOf, keep } from './index-engine/kept-sets.js';
import { matchingAmong, matchingDocs } from './index-engine/matching.js';
import {
  type Rows,
  type ScoringQueries,
  rankedOf,
  scoreRows,
  scoringQueries,
  scratchOf,
} from './index-engine/ranking.js';
import { Ascending, holds, int32Of } from './index-engine/sorted-sets.js';
import type { ProductIndex } from './product-index.js';
import type { ProductSegments } from './product-segments.js';
import {
  candidatesSql,
  levelGroups,
  liveHead,
  type ProductSearch,
  type ProductSearchResult,
  type Relaxation,
  type SearchEngine,
} from './search.sql.js';
import { clauseSql, querySql } from './tsquery.js';

/** One segment an answer reads: an index, less its products changed since it was built (`gone`, a kept set). */
interface Segment {
  index: ProductIndex;
  doc: IndexDoc;
  gone: Int32Array | null;
}

/** Each segment's part of an answer, with the part's count of strict matches and (relaxed) fewest clauses matched. */
type Part = AnswerPart & { strictTotal: number; minMatched: number };

const keptGone = new WeakMap<ProductSegments, Int32Array>();

function segmentsOf(segments: ProductSegments): Segment[] {
  let gone: Int32Array | null = null;
  if (segments.gone.length > 0) {
    gone = keptGone.get(segments) ?? keep(segments.gone);
    keptGone.set(segments, gone);
  }
  const base = { index: segments.base, doc: new IndexDoc(segments.base), gone };
  return segments.delta ? [base, { index: segments.delta, doc: new IndexDoc(segments.delta), gone: null }] : [base];
}

/** `docs` without the segment's changed products (a kept set when `docs` is one). */
const liveDocs = (segment: Segment, docs: Int32Array) =>
  segment.gone ? differenceOf(segment.index, docs, segment.gone) : docs;

/** An answer's products with their pin marks, without the segment's changed products. */
function live(segment: Segment, all: { docs: Int32Array; pin: Uint8Array }) {
  if (!segment.gone) return all;
  if (!all.pin.includes(1)) {
    const docs = liveDocs(segment, all.docs);
    return { docs, pin: new Uint8Array(docs.length) };
  }
  const gone = new Ascending(segment.gone);
  const kept = all.docs.map((_, r) => r).filter((r) => !gone.has(all.docs[r]));
  return { docs: kept.map((r) => all.docs[r]), pin: Uint8Array.from(kept, (r) => all.pin[r]) };
}

/** The answer from its parts: as answerOf for one segment, merged for two. */
function answerFrom(search: ProductSearch, parts: Part[], relaxation: ProductSearchResult['relaxation']) {
  const strictTotal = parts.reduce((sum, part) => sum + part.strictTotal, 0);
  if (parts.length > 1) return mergedAnswer(search, parts, relaxation, strictTotal);
  const [{ index, rows, order, first, missingOf }] = parts;
  return answerOf(index, search, rows, order, relaxation, strictTotal, missingOf, first);
}

/** A segment's part of the strict answer. */
function strictPart(segment: Segment, search: ProductSearch, scoring: ScoringQueries): Part {
  const { index, doc } = segment;
  const matching = matchingDocs(index, doc, scoring.ranked);
  const { docs, pin } = live(segment, withPins(index, search, matching));
  const clauseCount = search.full.must.length;
  const count = search.skip + search.take;
  const orderKey = impactOrderKey(search, scoring, docs);
  const known = orderKey === undefined ? undefined : rankedOf(index).orders.get(orderKey);
  const keysOf = (rows: Rows) => (r: number) => [rows.exact[r], rows.final[r]];
  if (known && holdsFirst(known, count)) {
    const rows = rowsOfImpactOrder(index, docs, known, clauseCount);
    const first = known.rows.subarray(0, count);
    return {
      index,
      rows,
      order: () => 0,
      keys: keysOf(rows),
      first,
      missingOf: () => [],
      strictTotal: docs.length,
      minMatched: Infinity,
    };
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
  const missingOf = (r: number) => (pin[r] === 1 && matched[r] === 0 ? all : []);
  return { index, rows, order, keys: keysOf(rows), first, missingOf, strictTotal: docs.length, minMatched: Infinity };
}

/** A segment's part of the relaxed answer at a level. */
function relaxedPart(
  segment: Segment,
  search: ProductSearch,
  relax: Relaxation,
  scoring: ScoringQueries,
  compiledClauses: ScoringQueries['pairs'],
): Part {
  const { index, doc } = segment;
  const must = search.full.must;
  const optional = must.map((_, i) => i).filter((i) => search.relaxable[i]);
  const required = must.length - optional.length;
  const matching = liveDocs(segment, matchingDocs(index, doc, scoring.ranked));
  const headClause = search.head !== null && search.relaxable[search.head] ? optional.indexOf(search.head) : -1;
  const countsHead = liveHead(search, relax) !== null;
  const all = live(segment, withPins(index, search, matching));
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
  const keys = (r: number) => [
    rows.exact[r],
    Number(matched[r] === must.length),
    rows.head[r],
    matched[r],
    rows.final[r],
  ];
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
  const missingOf = (r: number) => optional.filter((_, n) => !holds(clauseDocs[n], docs[r]));
  return { index, rows, order, keys, missingOf, strictTotal, minMatched };
}

/** The product search's steps answered from a project's index segments (see SearchEngine). */
export function indexEngine(ctx: Ctx, indexes: ProductSegments): SearchEngine {
  const segments = segmentsOf(indexes);
  const clauses = (search: ProductSearch) => compile(ctx, search.full.must.map(clauseSql));
  return {
    async strict(search) {
      const { scoring } = await scoringQueries(ctx, search, querySql(search.full), []);
      return answerFrom(
        search,
        segments.map((segment) => strictPart(segment, search, scoring)),
        null,
      );
    },

    async deadClauses(search, optional) {
      const compiledClauses = await clauses(search);
      const unpinned = { ...search, pinned: [] };
      return optional.filter((i) =>
        segments.every(
          (segment) =>
            admittedCount(
              segment.index,
              unpinned,
              liveDocs(segment, matchingDocs(segment.index, segment.doc, compiledClauses[i])),
              1,
            ) === 0,
        ),
      );
    },

    async levelFills(search, relax) {
      const [candidates] = await compile(ctx, [candidatesSql(search, relax)]);
      const grouped = levelGroups(search, relax) !== null;
      const compiledClauses = grouped ? [] : await clauses(search);
      let count = 0;
      for (const segment of segments) {
        const { index, doc } = segment;
        const matching = liveDocs(segment, matchingDocs(index, doc, candidates));
        if (grouped) {
          count += admittedCount(index, search, matching, search.relaxBelow - count);
          if (count >= search.relaxBelow) return true;
          continue;
        }
        const head = liveHead(search, relax);
        // Per live clause, a cursor through its products among the candidates (both ascending).
        const lists = relax.live.map((i) => new Ascending(matchingAmong(doc, compiledClauses[i], matching)));
        const admit = admitted(index, search);
        for (const position of matching) {
          if (admit !== null && !admit(position)) continue;
          let worth = 0;
          relax.live.forEach((i, n) => (worth += Number(lists[n].has(position)) * (i === head ? 2 : 1)));
          if (worth >= relax.level && ++count >= search.relaxBelow) return true;
        }
      }
      return false;
    },

    async relaxed(search, relax) {
      const must = search.full.must;
      const required = must.length - must.filter((_, i) => search.relaxable[i]).length;
      const { scoring, others: compiledClauses } = await scoringQueries(
        ctx,
        search,
        candidatesSql(search, relax),
        must.map(clauseSql),
      );
      const parts = segments.map((segment) => relaxedPart(segment, search, relax, scoring, compiledClauses));
      const minMatched = Math.min(...parts.map((part) => part.minMatched));
      const relaxation = {
        minMatched: Number.isFinite(minMatched) ? minMatched : required + relax.level,
        unmatched: relax.dead,
      };
      return answerFrom(search, parts, relaxation);
    },
  };
}
