/** The SQL of a product and collection search (one statement each). */
import { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { RANK_WEIGHTS } from './product-index.js';
import { clauseSql, querySql, termSql } from './tsquery.js';
import type { ParsedQuery } from './query-parser.js';

// ts_rank weights of D (description), C (variant titles), B (type, vendor, tags, collections), A (title, SKUs).
const WEIGHTS = `{${RANK_WEIGHTS.join(',')}}`;

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
  /** Per clause of `full.must`: whether the answer may hold products that do not match it. */
  relaxable: boolean[];
  /** The clause of the head noun (see headClause), a tie-break among relaxed matches. */
  head: number | null;
  /** The typed words as a title would read them: an equal title scores more. */
  titleText: string;
  /** Words typed side by side: a title holding them side by side scores more. */
  pairs: Array<[string, string]>;
  /** Relaxation applies when the strict matches are fewer than this (the page size). */
  relaxBelow: number;
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
  /** Clauses of the query the product matches (required ones included). */
  matched_words: number;
  /** Indexes of the clauses it does not match (empty for a strict match). */
  missing: number[];
}

export interface FacetsJson {
  product_type: Array<{ value: string; count: number }>;
  tag: Array<{ value: string; count: number }>;
  collection: Array<{ id: string; title: string; count: number }>;
  in_stock: Array<{ value: boolean; count: number }>;
  price: { min: number | null; max: number | null };
}

export interface ProductSearchResult {
  total: number;
  /** Products matching every clause (pins included). */
  strictTotal: number;
  /** Null for a strict answer; else the fewest clauses an answered product matches and the clauses no product matches. */
  relaxation: { minMatched: number; unmatched: number[] } | null;
  hits: ProductRowJson[];
  pinned: ProductRowJson[];
  facets?: FacetsJson;
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
  round(p.price * ${rate}::float8) AS price, round(p.sale_price * ${rate}::float8) AS sale_price, p.in_stock`;

/**
 * The tsqueries of a statement, built once in its `q` CTE (one row): `ref()` reads one back as an InitPlan,
 * so no row rebuilds a tsquery.
 */
class QueryColumns {
  private readonly columns: Prisma.Sql[] = [];

  ref(tsquery: Prisma.Sql): Prisma.Sql {
    const name = `t${this.columns.length}`;
    this.columns.push(Prisma.sql`${tsquery} AS ${Prisma.raw(name)}`);
    return Prisma.sql`(SELECT ${Prisma.raw(name)} FROM q)`;
  }

  /** The CTE; call after every ref(). */
  cte(): Prisma.Sql {
    return Prisma.sql`q AS (SELECT ${Prisma.join(this.columns, ', ')})`;
  }
}

/** The tsquery of two words side by side in a title (weight A), stemmed or exact. */
export function pairSql([a, b]: [string, string]): Prisma.Sql {
  const phrase = `${a}:A <-> ${b}:A`;
  return Prisma.sql`(to_tsquery('english', ${phrase}) || to_tsquery('search_exact', ${phrase}))`;
}

/**
 * What the whole query adds to a product's text score: 1 when its title reads exactly as the typed words
 * (punctuation and case ignored), and up to 0.5 for word proximity, the share of the pairs of words typed
 * side by side that its title holds side by side (stemmed or exact).
 */
function wholeQueryBonus(search: ProductSearch, q: QueryColumns): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (search.titleText.includes(' ')) {
    const title = Prisma.sql`btrim(regexp_replace(s.title_norm, '[^[:alnum:]]+', ' ', 'g'))`;
    parts.push(Prisma.sql`(CASE WHEN ${title} = ${search.titleText} THEN 1 ELSE 0 END)`);
  }
  const share = 0.5 / Math.max(1, search.pairs.length);
  for (const pair of search.pairs) {
    parts.push(Prisma.sql`(CASE WHEN s.document @@ ${q.ref(pairSql(pair))} THEN ${share}::float8 ELSE 0 END)`);
  }
  return parts.length > 0 ? Prisma.sql`(${Prisma.join(parts, ' + ')})` : Prisma.sql`0`;
}

function multiplierSql(search: ProductSearch): Prisma.Sql {
  const boostIds = [...search.multipliers.keys()];
  const boostValues = boostIds.map((id) => search.multipliers.get(id)!);
  return boostIds.length > 0
    ? Prisma.sql`coalesce((SELECT b.mult FROM unnest(${boostIds}::text[], ${boostValues}::float8[]) AS b(id, mult) WHERE b.id = r.product_id), 1)`
    : Prisma.sql`1`;
}

interface ResultRow {
  total: number;
  strict_total: number;
  min_matched: number | null;
  unmatched: number[] | null;
  in_stock: number;
  price_min: number | null;
  price_max: number | null;
  hits: ProductRowJson[];
  pinned: ProductRowJson[];
  f_type?: FacetsJson['product_type'];
  f_tag?: FacetsJson['tag'];
  f_collection?: FacetsJson['collection'];
}

function toResult(search: ProductSearch, row: ResultRow, relaxed: boolean): ProductSearchResult {
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
  return {
    total: row.total,
    strictTotal: row.strict_total,
    relaxation: relaxed ? { minMatched: row.min_matched!, unmatched: row.unmatched ?? [] } : null,
    hits,
    pinned: row.pinned,
    ...(facets ? { facets } : {}),
  };
}

/**
 * The strict search, one statement: the matches of every clause (or pins, filters, not hidden) ranked once
 * into narrow rows, the page (display fields read for its rows only), the pinned rows, the total and the facets.
 */
async function runStrictSearch(ctx: Ctx, search: ProductSearch): Promise<ProductSearchResult> {
  const q = new QueryColumns();
  const qf = q.ref(querySql(search.full));
  const exact = search.exact ? Prisma.sql`s.document @@ ${q.ref(querySql(search.exact))}` : Prisma.sql`true`;
  const bonus = wholeQueryBonus(search, q);
  const rate = search.rate;
  const clauses = search.full.must.length;
  const allClauses = search.full.must.map((_, i) => i);
  const rows = await ctx.db.$queryRaw<ResultRow[]>`
    WITH ${q.cte()},
    m AS MATERIALIZED (
      SELECT r.*, r.text_score * ${multiplierSql(search)} AS final_score FROM (
        SELECT s.product_id, s.product_type, s.tags, s.collection_ids, s.in_stock, s.price,
               ts_rank(${WEIGHTS}::float4[], s.document, ${qf}) + ${bonus} AS text_score, ${exact} AS exact
        FROM search_products s
        WHERE s.project_id = ${ctx.project.id}
          AND (s.document @@ ${qf} OR s.product_id = ANY(${search.pinned}::text[]))
          AND s.product_id <> ALL(${search.hidden}::text[]) ${filterSql(search.filters, rate)}
      ) r
    ),
    page AS (
      SELECT product_id, text_score, final_score, row_number() OVER () AS n FROM (
        SELECT product_id, text_score, final_score FROM m WHERE product_id <> ALL(${search.pinned}::text[])
        ORDER BY exact DESC, final_score DESC, product_id LIMIT ${search.take} OFFSET ${search.skip}) o
    ),
    agg AS (SELECT count(*)::int AS total, count(*)::int AS strict_total, NULL::int AS min_matched, NULL::int[] AS unmatched,
                   count(*) FILTER (WHERE in_stock)::int AS in_stock,
                   round(min(price) * ${rate}::float8) AS price_min, round(max(price) * ${rate}::float8) AS price_max FROM m)
    SELECT agg.*,
      (SELECT coalesce(json_agg(r ORDER BY r.n), '[]') FROM (
         SELECT ${DISPLAY(rate)}, g.text_score, g.final_score, ${clauses}::int AS matched_words, '{}'::int[] AS missing, g.n
         FROM page g JOIN search_products p ON p.product_id = g.product_id) r) AS hits,
      (SELECT coalesce(json_agg(r), '[]') FROM (
         SELECT ${DISPLAY(rate)}, m.text_score, m.final_score, CASE WHEN p.document @@ ${qf} THEN ${clauses}::int ELSE 0 END AS matched_words,
                CASE WHEN p.document @@ ${qf} THEN '{}'::int[] ELSE ${allClauses}::int[] END AS missing
         FROM m JOIN search_products p ON p.product_id = m.product_id
         WHERE m.product_id = ANY(${search.pinned}::text[])) r) AS pinned
      ${search.facets ? FACETS : Prisma.empty}
    FROM agg`;
  return toResult(search, rows[0], false);
}

/** How far a relaxed answer goes: the relaxable clauses no product matches, and what the others a product matches must be worth (see liveHead). */
export interface Relaxation {
  dead: number[];
  live: number[];
  level: number;
}

// Above this many combinations of live clauses, a level's candidates are the union of the live clauses
// (a superset, filtered by the count of matched clauses) instead of one GIN query per combination.
const MAX_COMBINATIONS = 64;

function combinations<T>(items: T[], size: number): T[][] {
  if (size === 0) return [[]];
  if (items.length < size) return [];
  const [first, ...rest] = items;
  return [...combinations(rest, size - 1).map((c) => [first, ...c]), ...combinations(rest, size)];
}

function countOf(n: number, k: number): number {
  let result = 1;
  for (let i = 0; i < k; i++) result = (result * (n - i)) / (i + 1);
  return result;
}

/**
 * The live relaxable clause of the head noun (the kind of product asked for), or null. It counts twice
 * towards a relaxation level: a product of the kind asked for needs one other word fewer than a product
 * of another kind, so "sand merino wool jacket" keeps jackets in sand or in merino wool before merino
 * wool sweaters in sand.
 */
export function liveHead(search: ProductSearch, relax: Relaxation): number | null {
  return search.head !== null && relax.live.includes(search.head) ? search.head : null;
}

/** The groups of live clauses a product of the level matches all of (at least one group), or null past MAX_COMBINATIONS. */
export function levelGroups(search: ProductSearch, relax: Relaxation): number[][] | null {
  const head = liveHead(search, relax);
  if (head === null) {
    return countOf(relax.live.length, relax.level) <= MAX_COMBINATIONS ? combinations(relax.live, relax.level) : null;
  }
  const others = relax.live.filter((i) => i !== head);
  const withHead = relax.level <= 2 ? 1 : countOf(others.length, relax.level - 2);
  if (withHead + countOf(others.length, relax.level) > MAX_COMBINATIONS) return null;
  return [
    ...(relax.level <= 2 ? [[head]] : combinations(others, relax.level - 2).map((group) => [head, ...group])),
    ...combinations(others, relax.level),
  ];
}

/** How much a product's matches of the live clauses count towards a level, as SQL over `s.document` (the head twice). */
function levelCountSql(search: ProductSearch, relax: Relaxation): Prisma.Sql {
  const must = search.full.must;
  const head = liveHead(search, relax);
  return Prisma.join(
    [...relax.live, ...(head === null ? [] : [head])].map(
      (i) => Prisma.sql`(s.document @@ ${clauseSql(must[i])})::int`,
    ),
    ' + ',
  );
}

/**
 * The candidates of a relaxation level as one tsquery: every required clause, live relaxable clauses worth
 * at least `level` (the head noun's counting twice; each combination an AND, so the GIN index finds them),
 * no excluded term. Past MAX_COMBINATIONS, the union of the live clauses (filtered by their count after).
 */
export function candidatesSql(search: ProductSearch, relax: Relaxation): Prisma.Sql {
  const must = search.full.must;
  const parts: Prisma.Sql[] = must.filter((_, i) => !search.relaxable[i]).map(clauseSql);
  if (relax.level > 0) {
    const groups = levelGroups(search, relax) ?? relax.live.map((i) => [i]);
    parts.push(
      Prisma.sql`(${Prisma.join(
        groups.map(
          (group) =>
            Prisma.sql`(${Prisma.join(
              group.map((i) => clauseSql(must[i])),
              ' && ',
            )})`,
        ),
        ' || ',
      )})`,
    );
  }
  for (const t of search.full.exclude) {
    parts.push(Prisma.sql`!! ${termSql({ ...t, ...(t.kind === 'word' ? { prefix: false } : {}) })}`);
  }
  return Prisma.join(parts, ' && ');
}

/**
 * Runs an existence or bounded count through the GIN index (a bitmap scan): with a LIMIT the planner
 * otherwise prefers a sequential scan, or the project index, hoping to meet a match early, and reads every
 * row of the project when there is none.
 */
async function throughIndex<T>(ctx: Ctx, query: Prisma.Sql): Promise<T[]> {
  const [, , rows] = await ctx.db.$transaction([
    ctx.db.$executeRaw`SET LOCAL enable_seqscan = off`,
    ctx.db.$executeRaw`SET LOCAL enable_indexscan = off`,
    ctx.db.$queryRaw<T[]>(query),
  ]);
  return rows;
}

/** The relaxable clauses that no product (filters and hidden products applied) matches. */
async function deadClauses(ctx: Ctx, search: ProductSearch, optional: number[]): Promise<number[]> {
  const checks = optional.map(
    (i) => Prisma.sql`NOT EXISTS (SELECT 1 FROM search_products s WHERE s.project_id = ${ctx.project.id}
      AND s.document @@ ${clauseSql(search.full.must[i])} AND s.product_id <> ALL(${search.hidden}::text[]) ${filterSql(search.filters, search.rate)})`,
  );
  const [row] = await throughIndex<{ dead: boolean[] }>(ctx, Prisma.sql`SELECT ARRAY[${Prisma.join(checks)}] AS dead`);
  return optional.filter((_, n) => row.dead[n]);
}

/**
 * Whether a level gives at least `relaxBelow` products: counts at most that many (the scan stops there).
 * Above MAX_COMBINATIONS the union is read with the clauses counted per row.
 */
async function levelFills(ctx: Ctx, search: ProductSearch, relax: Relaxation): Promise<boolean> {
  const union = levelGroups(search, relax) === null;
  const counted = union ? Prisma.sql`AND (${levelCountSql(search, relax)}) >= ${relax.level}` : Prisma.empty;
  const [row] = await throughIndex<{ n: number }>(
    ctx,
    Prisma.sql`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM search_products s WHERE s.project_id = ${ctx.project.id} AND s.document @@ (${candidatesSql(search, relax)})
        AND s.product_id <> ALL(${search.hidden}::text[]) ${filterSql(search.filters, search.rate)} ${counted}
      LIMIT ${search.relaxBelow}) x`,
  );
  return row.n >= search.relaxBelow;
}

/**
 * The relaxed answer, one statement: the products matching every required clause and live relaxable
 * clauses worth at least `level` (the head noun's counting twice), and no excluded term (pins aside). Ranked: exact strict matches, strict
 * matches, then relaxed ones keeping the head noun (the kind of product asked for), then by clauses
 * matched, then by score; total and facets count the answer.
 */
async function runRelaxedSearch(ctx: Ctx, search: ProductSearch, relax: Relaxation): Promise<ProductSearchResult> {
  const rate = search.rate;
  const must = search.full.must;
  const required = must.filter((_, i) => !search.relaxable[i]);
  const optional = must.map((_, i) => i).filter((i) => search.relaxable[i]);
  const q = new QueryColumns();
  const qc = q.ref(candidatesSql(search, relax));
  const clauseRefs = new Map(optional.map((i) => [i, q.ref(clauseSql(must[i]))]));
  const hitsOf = Prisma.join(
    optional.map((i) => Prisma.sql`s.document @@ ${clauseRefs.get(i)!}`),
    ', ',
  );
  const head =
    search.head !== null && search.relaxable[search.head]
      ? Prisma.sql`s.document @@ ${clauseRefs.get(search.head)!}`
      : Prisma.sql`true`;
  // What a product's matches are worth towards the level: the live head noun counts twice (see liveHead).
  const worth = liveHead(search, relax) === null ? Prisma.sql`matched` : Prisma.sql`matched + head::int`;
  const exact = search.exact ? Prisma.sql`s.document @@ ${q.ref(querySql(search.exact))}` : Prisma.sql`true`;
  const bonus = wholeQueryBonus(search, q);
  const indexes = Prisma.sql`unnest(${optional}::int[])`;
  const rows = await ctx.db.$queryRaw<ResultRow[]>`
    WITH ${q.cte()},
    c AS MATERIALIZED (
      SELECT r.*, r.text_score * ${multiplierSql(search)} AS final_score,
             CASE WHEN r.pin AND NOT r.cand THEN 0 ELSE ${required.length}::int END + (SELECT count(*) FROM unnest(r.hits) h WHERE h)::int AS matched FROM (
        SELECT s.product_id, s.product_type, s.tags, s.collection_ids, s.in_stock, s.price,
               ARRAY[${hitsOf}] AS hits, ${head} AS head, ${exact} AS exact,
               ts_rank(${WEIGHTS}::float4[], s.document, ${qc}) + ${bonus} AS text_score,
               s.product_id = ANY(${search.pinned}::text[]) AS pin, s.document @@ ${qc} AS cand
        FROM search_products s
        WHERE s.project_id = ${ctx.project.id}
          AND (s.document @@ ${qc} OR s.product_id = ANY(${search.pinned}::text[]))
          AND s.product_id <> ALL(${search.hidden}::text[]) ${filterSql(search.filters, rate)}
      ) r
    ),
    m AS MATERIALIZED (SELECT * FROM c WHERE ${worth} >= ${required.length + relax.level}::int OR pin),
    page AS (
      SELECT product_id, text_score, final_score, matched, hits, row_number() OVER () AS n FROM (
        SELECT * FROM m WHERE NOT pin
        ORDER BY exact DESC, matched = ${must.length}::int DESC, head DESC, matched DESC, final_score DESC, product_id LIMIT ${search.take} OFFSET ${search.skip}) o
    ),
    agg AS (SELECT count(*)::int AS total, count(*) FILTER (WHERE matched = ${must.length}::int OR pin)::int AS strict_total,
                   coalesce(min(matched) FILTER (WHERE NOT pin), ${required.length + relax.level}::int)::int AS min_matched, ${relax.dead}::int[] AS unmatched,
                   count(*) FILTER (WHERE in_stock)::int AS in_stock,
                   round(min(price) * ${rate}::float8) AS price_min, round(max(price) * ${rate}::float8) AS price_max FROM m)
    SELECT agg.*,
      (SELECT coalesce(json_agg(r ORDER BY r.n), '[]') FROM (
         SELECT ${DISPLAY(rate)}, g.text_score, g.final_score, g.matched AS matched_words,
                ARRAY(SELECT x.idx FROM ${indexes} WITH ORDINALITY x(idx, i) WHERE NOT g.hits[x.i] ORDER BY x.i) AS missing, g.n
         FROM page g JOIN search_products p ON p.product_id = g.product_id) r) AS hits,
      (SELECT coalesce(json_agg(r), '[]') FROM (
         SELECT ${DISPLAY(rate)}, m.text_score, m.final_score, m.matched AS matched_words,
                ARRAY(SELECT x.idx FROM ${indexes} WITH ORDINALITY x(idx, i) WHERE NOT m.hits[x.i] ORDER BY x.i) AS missing
         FROM m JOIN search_products p ON p.product_id = m.product_id WHERE m.pin) r) AS pinned
      ${search.facets ? FACETS : Prisma.empty}
    FROM agg`;
  return toResult(search, rows[0], true);
}

/**
 * The product search: the strict matches (every clause), and when they are fewer than `relaxBelow` and
 * the query has a clause that may go unmatched, the relaxed answer instead (strict matches still first):
 * relaxable clauses no product matches are dropped, then the level (what the live relaxable clauses a
 * product matches must be worth, the head noun's counting twice) is the largest that gives `relaxBelow`
 * products (at least one clause in all).
 */
export async function runProductSearch(engine: SearchEngine, search: ProductSearch): Promise<ProductSearchResult> {
  const strict = await engine.strict(search);
  const optional = search.relaxable.flatMap((relaxable, i) => (relaxable ? [i] : []));
  if (strict.total >= search.relaxBelow || optional.length === 0 || search.full.must.length < 2) return strict;
  const dead = await engine.deadClauses(search, optional);
  const live = optional.filter((i) => !dead.includes(i));
  const required = search.full.must.length - optional.length;
  // At least one clause matched in all: without a required clause, at least one live relaxable one.
  const lowest = required > 0 ? 0 : 1;
  if (live.length < lowest) return strict;
  // The level of all live clauses (the head noun's counting twice) is the strict answer when nothing is dead:
  // it did not fill the page. Fewer clauses give more products, so the largest level that fills is found by bisection.
  const top = live.length + (liveHead(search, { dead, live, level: 0 }) === null ? 0 : 1);
  let [low, high] = [lowest, dead.length === 0 ? top - 1 : top];
  while (low < high) {
    const level = Math.ceil((low + high) / 2);
    if (await engine.levelFills(search, { dead, live, level })) low = level;
    else high = level - 1;
  }
  return engine.relaxed(search, { dead, live, level: low });
}

/** The steps of a product search, answered by the statements below or by the in-process index (product-index.search.ts). */
export interface SearchEngine {
  /** The strict answer: products matching every clause (and pins), ranked, counted, faceted. */
  strict(search: ProductSearch): Promise<ProductSearchResult>;
  /** The relaxable clauses that no product (filters and hidden products applied) matches. */
  deadClauses(search: ProductSearch, optional: number[]): Promise<number[]>;
  /** Whether a relaxation level gives at least `relaxBelow` products. */
  levelFills(search: ProductSearch, relax: Relaxation): Promise<boolean>;
  /** The relaxed answer at a level. */
  relaxed(search: ProductSearch, relax: Relaxation): Promise<ProductSearchResult>;
}

/** The product search's steps as statements. */
export function statementEngine(ctx: Ctx): SearchEngine {
  return {
    strict: (search) => runStrictSearch(ctx, search),
    deadClauses: (search, optional) => deadClauses(ctx, search, optional),
    levelFills: (search, relax) => levelFills(ctx, search, relax),
    relaxed: (search, relax) => runRelaxedSearch(ctx, search, relax),
  };
}
