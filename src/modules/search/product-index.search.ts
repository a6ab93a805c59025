/**
 * The product search's steps answered from a project's in-process index (product-index.ts), as the statements
 * of search.sql.ts answer them: the same tsqueries (compiled by PostgreSQL, matched and ranked here exactly as
 * PostgreSQL matches and ranks them, see engine/), the same filters, order, totals and facets.
 */
import type { Ctx } from '../../shared/context.js';
import { answerOf } from './index-engine/answers.js';
import { compile } from './index-engine/compiled-tsqueries.js';
import { admitted, admittedCount, withPins } from './index-engine/filters.js';
import { holdsFirst, impactOrderKey, keepImpactOrder, rowsOfImpactOrder } from './index-engine/impact-orders.js';
import { IndexDoc } from './index-engine/index-doc.js';
import { recentlyUsed } from './index-engine/kept-sets.js';
import { matchingAmong, matchingDocs } from './index-engine/matching.js';
import { type Rows, rankedOf, scoreRows, scoringQueries, scratchOf } from './index-engine/ranking.js';
import { Ascending, holds, int32Of } from './index-engine/sorted-sets.js';
import type { ProductIndex } from './product-index.js';
import { candidatesSql, levelGroups, liveHead, type ProductSearch, type SearchEngine } from './search.sql.js';
import { clauseSql, querySql } from './tsquery.js';

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
