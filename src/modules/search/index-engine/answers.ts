/**
 * Answers: the page of an answer in the statements' order (the page's rows only), with its rows' display fields,
 * totals, facets and relaxation, as search.sql.ts's statements answer them.
 */
import type { ProductIndex } from '../product-index.js';
import type { ProductRowJson, ProductSearch, ProductSearchResult } from '../search.sql.js';
import { countsOf, facetsOf } from './facets.js';
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
