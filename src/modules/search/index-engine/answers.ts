/**
 * Answers: the page of an answer in the statements' order (the page's rows only), with its rows' display fields,
 * totals, facets and relaxation, as search.sql.ts's statements answer them.
 */
import type { ProductIndex } from '../product-index.js';
import type { ProductRowJson, ProductSearch, ProductSearchResult } from '../search.sql.js';
import { compareCodePoints } from '../suggest-index.text.js';
import { countsOf, facetsOf, mergedFacetsOf } from './facets.js';
import { roundHalfEven } from './filters.js';
import { type Rows, topRows } from './ranking.js';

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

/** The in-stock and price facets of an answer of `total` products from its counts. */
function stockAndPrice(search: ProductSearch, total: number, inStock: number, low: number, high: number) {
  return {
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

/**
 * The answer's totals, page, pins and facets from its rows (the statements' `agg`, `page` and facet parts); `first`:
 * its first unpinned rows in `order` when known (up to the page's last, or every row).
 */
export function answerOf(
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
    result.facets = { ...facetsOf(index, counts), ...stockAndPrice(search, total, inStock, low, high) };
  }
  return result;
}

/** One index's part of an answer (see mergedAnswer). */
export interface AnswerPart {
  index: ProductIndex;
  rows: Rows;
  /** The rows' order within the part; `keys`: a row's values this order compares before the product, descending. */
  order: (a: number, b: number) => number;
  keys: (r: number) => number[];
  /** The part's first unpinned rows in `order` when known (as answerOf's `first`). */
  first?: ArrayLike<number>;
  missingOf: (r: number) => number[];
}

const compareKeys = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i] - a[i];
  return 0;
};

/**
 * The answer whose products lie in several indexes (an index and its changed products', see ProductSegments) as
 * answerOf gives it for one: each part's first rows merged in the order (ties by product id, as the statements'
 * last tie-break), pins by id, totals added, facets counted over every part.
 */
export function mergedAnswer(
  search: ProductSearch,
  parts: AnswerPart[],
  relaxation: ProductSearchResult['relaxation'],
  strictTotal: number,
): ProductSearchResult {
  const count = search.skip + search.take;
  const rowsOf = (part: AnswerPart, rows: ArrayLike<number>) =>
    Array.from(rows, (r) => ({ part, r, keys: part.keys(r), id: part.index.ids.at(part.rows.docs[r]) }));
  const first = parts.flatMap((part) =>
    rowsOf(part, part.first ? Array.from(part.first).slice(0, count) : topRows(part.rows.pin, count, part.order)),
  );
  first.sort((a, b) => compareKeys(a.keys, b.keys) || compareCodePoints(a.id, b.id));
  const pinned = parts.flatMap((part) =>
    rowsOf(
      part,
      Array.from(part.rows.docs.keys()).filter((r) => part.rows.pin[r] === 1),
    ),
  );
  pinned.sort((a, b) => compareCodePoints(a.id, b.id));
  const total = parts.reduce((sum, part) => sum + part.rows.docs.length, 0);
  const json = ({ part, r }: { part: AnswerPart; r: number }) =>
    rowOf(part.index, search, part.rows, r, part.missingOf(r));
  const result: ProductSearchResult = {
    total,
    strictTotal,
    relaxation,
    hits: first.slice(search.skip, count).map(json),
    pinned: pinned.map(json),
  };
  if (search.facets) {
    const { facets, inStock, low, high } = mergedFacetsOf(parts.map(({ index, rows }) => ({ index, docs: rows.docs })));
    result.facets = { ...facets, ...stockAndPrice(search, total, inStock, low, high) };
  }
  return result;
}
