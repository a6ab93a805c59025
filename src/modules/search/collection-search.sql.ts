import type { Ctx } from '../../shared/context.js';
import { RANK_WEIGHTS } from './product-index.js';
import type { ParsedQuery } from './query-parser.js';
import { querySql } from './tsquery.js';

/** The collections part of a search, one statement (the product part is search.sql.ts's). */

const WEIGHTS = `{${RANK_WEIGHTS.join(',')}}`;

export interface CollectionRowJson {
  id: string;
  title: string;
  handle: string;
  image: string | null;
  product_count: number;
  score: number;
}

/** Collections whose title or description match, best first, with their count of live products. */
export async function runCollectionSearch(ctx: Ctx, full: ParsedQuery, take: number, skip: number) {
  const rows = await ctx.db.$queryRaw<Array<{ total: number; hits: CollectionRowJson[] }>>`
    WITH q AS (SELECT ${querySql(full)} AS qf),
    m AS MATERIALIZED (
      SELECT c.id, c.title, c.handle, c.image, ts_rank(${WEIGHTS}::float4[], d.doc, (SELECT qf FROM q)) AS score
      FROM collections c
      CROSS JOIN LATERAL (SELECT
        setweight(search_vector(unaccent(c.title)), 'A') || setweight(search_vector(unaccent(c.description)), 'D') AS doc) d
      WHERE c.project_id = ${ctx.project.id} AND d.doc @@ (SELECT qf FROM q)
    )
    SELECT (SELECT count(*)::int FROM m) AS total,
      (SELECT coalesce(json_agg(r), '[]') FROM (
        SELECT m.id, m.title, m.handle, m.image, m.score,
          (SELECT count(*)::int FROM collection_products cp JOIN products p ON p.id = cp.product_id AND p.deleted_at IS NULL AND p.status = 'active'
           WHERE cp.collection_id = m.id) AS product_count
        FROM m ORDER BY m.score DESC, m.id LIMIT ${take} OFFSET ${skip}) r) AS hits`;
  return rows[0];
}
