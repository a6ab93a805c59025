/** The SQL of a product and collection search (one statement each). */
import { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { querySql } from './tsquery.js';
import type { ParsedQuery } from './query-parser.js';

// ts_rank weights of D (description), C (variant titles), B (type, vendor, tags, collections), A (title, SKUs).
const WEIGHTS = '{0.1,0.3,0.5,1.0}';

export interface ProductFilters {
  productType?: string;
  collectionId?: string;
  tag?: string;
  inStock?: boolean;
  priceMin?: number;
  priceMax?: number;
}

export interface ProductSearch {
  full: ParsedQuery;
  exact: ParsedQuery | null;
  filters: ProductFilters;
  rate: number;
  hidden: string[];
  pinned: string[];
  multipliers: Map<string, number>;
  take: number;
  skip: number;
  facets: boolean;
}

export interface ProductRowJson {
  id: string;
  title: string;
  handle: string;
  product_type: string | null;
  image: string | null;
  price: number;
  sale_price: number | null;
  in_stock: boolean;
  text_score: number;
  final_score: number;
}

export interface FacetsJson {
  product_type: Array<{ value: string; count: number }>;
  tag: Array<{ value: string; count: number }>;
  collection: Array<{ id: string; title: string; count: number }>;
  in_stock: Array<{ value: boolean; count: number }>;
  price: { min: number | null; max: number | null };
}

function filterSql(filters: ProductFilters, rate: number): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (filters.productType !== undefined) parts.push(Prisma.sql`s.product_type = ${filters.productType}`);
  if (filters.collectionId !== undefined)
    parts.push(Prisma.sql`s.collection_ids @> ARRAY[${filters.collectionId}]::text[]`);
  if (filters.tag !== undefined) parts.push(Prisma.sql`s.tags @> ARRAY[${filters.tag}]::text[]`);
  if (filters.inStock !== undefined) parts.push(Prisma.sql`s.in_stock = ${filters.inStock}`);
  if (filters.priceMin !== undefined) parts.push(Prisma.sql`round(s.price * ${rate}::float8) >= ${filters.priceMin}`);
  if (filters.priceMax !== undefined) parts.push(Prisma.sql`round(s.price * ${rate}::float8) <= ${filters.priceMax}`);
  return parts.length ? Prisma.sql`AND ${Prisma.join(parts, ' AND ')}` : Prisma.empty;
}

// Facets over the materialized matches `m` (narrow rows: no document, no display fields). The value lists
// unnest in the select list (a ProjectSet), which is several times cheaper than a lateral unnest per row.
const FACETS = Prisma.sql`,
  (SELECT coalesce(json_agg(json_build_object('value', v, 'count', n) ORDER BY n DESC, v), '[]')
     FROM (SELECT product_type AS v, count(*)::int AS n FROM m WHERE product_type IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50) x) AS f_type,
  (SELECT coalesce(json_agg(json_build_object('value', v, 'count', n) ORDER BY n DESC, v), '[]')
     FROM (SELECT v, count(*)::int AS n FROM (SELECT unnest(tags) AS v FROM m) t GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50) x) AS f_tag,
  (SELECT coalesce(json_agg(json_build_object('id', x.id, 'title', c.title, 'count', x.n) ORDER BY x.n DESC, c.title, x.id), '[]')
     FROM (SELECT id, count(*)::int AS n FROM (SELECT unnest(collection_ids) AS id FROM m) t GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50) x
     JOIN collections c ON c.id = x.id) AS f_collection`;

// The display fields of ranked rows, read from the table by primary key (only for the page and the pins).
const DISPLAY = (rate: number) => Prisma.sql`p.product_id AS id, p.title, p.handle, p.product_type, p.image,
  round(p.price * ${rate}::float8)::int AS price, round(p.sale_price * ${rate}::float8)::int AS sale_price, p.in_stock`;

/**
 * One statement: the matches (query or pin, filters, not hidden) ranked once into narrow rows, the page
 * (display fields read for its rows only), the pinned rows, the total and the facets.
 */
export async function runProductSearch(ctx: Ctx, search: ProductSearch) {
  const boostIds = [...search.multipliers.keys()];
  const boostValues = boostIds.map((id) => search.multipliers.get(id)!);
  const exact = search.exact ? Prisma.sql`s.document @@ (SELECT qe FROM q)` : Prisma.sql`true`;
  const multiplier =
    boostIds.length > 0
      ? Prisma.sql`coalesce((SELECT b.mult FROM unnest(${boostIds}::text[], ${boostValues}::float8[]) AS b(id, mult) WHERE b.id = r.product_id), 1)`
      : Prisma.sql`1`;
  const rate = search.rate;
  const rows = await ctx.db.$queryRaw<
    Array<{
      total: number;
      in_stock: number;
      price_min: number | null;
      price_max: number | null;
      hits: ProductRowJson[];
      pinned: ProductRowJson[];
      f_type?: FacetsJson['product_type'];
      f_tag?: FacetsJson['tag'];
      f_collection?: FacetsJson['collection'];
    }>
  >`
    WITH q AS (SELECT ${querySql(search.full)} AS qf, ${search.exact ? querySql(search.exact) : Prisma.sql`NULL::tsquery`} AS qe),
    m AS MATERIALIZED (
      SELECT r.*, r.text_score * ${multiplier} AS final_score FROM (
        SELECT s.product_id, s.product_type, s.tags, s.collection_ids, s.in_stock, s.price,
               ts_rank(${WEIGHTS}::float4[], s.document, (SELECT qf FROM q)) AS text_score, ${exact} AS exact
        FROM search_products s
        WHERE s.project_id = ${ctx.project.id}
          AND (s.document @@ (SELECT qf FROM q) OR s.product_id = ANY(${search.pinned}::text[]))
          AND s.product_id <> ALL(${search.hidden}::text[]) ${filterSql(search.filters, rate)}
      ) r
    ),
    page AS (
      SELECT product_id, text_score, final_score, row_number() OVER () AS n FROM (
        SELECT product_id, text_score, final_score FROM m WHERE product_id <> ALL(${search.pinned}::text[])
        ORDER BY exact DESC, final_score DESC, product_id LIMIT ${search.take} OFFSET ${search.skip}) o
    ),
    agg AS (SELECT count(*)::int AS total, count(*) FILTER (WHERE in_stock)::int AS in_stock,
                   round(min(price) * ${rate}::float8)::int AS price_min, round(max(price) * ${rate}::float8)::int AS price_max FROM m)
    SELECT agg.*,
      (SELECT coalesce(json_agg(r ORDER BY r.n), '[]') FROM (
         SELECT ${DISPLAY(rate)}, g.text_score, g.final_score, g.n FROM page g JOIN search_products p ON p.product_id = g.product_id) r) AS hits,
      (SELECT coalesce(json_agg(r), '[]') FROM (
         SELECT ${DISPLAY(rate)}, m.text_score, m.final_score FROM m JOIN search_products p ON p.product_id = m.product_id
         WHERE m.product_id = ANY(${search.pinned}::text[])) r) AS pinned
      ${search.facets ? FACETS : Prisma.empty}
    FROM agg`;
  const row = rows[0];
  const stock = [
    ...(row.in_stock > 0 ? [{ value: true, count: row.in_stock }] : []),
    ...(row.total - row.in_stock > 0 ? [{ value: false, count: row.total - row.in_stock }] : []),
  ];
  const facets: FacetsJson | undefined = search.facets
    ? {
        product_type: row.f_type!,
        tag: row.f_tag!,
        collection: row.f_collection!,
        in_stock: stock,
        price: { min: row.price_min, max: row.price_max },
      }
    : undefined;
  const hits = row.hits.map(({ n: _n, ...hit }: ProductRowJson & { n?: number }) => hit);
  return { total: row.total, hits, pinned: row.pinned, facets };
}

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
