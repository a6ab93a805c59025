import { poolOf } from '../../db/client.js';
import { preparedStatement } from '../../db/prepared.js';
import type { Ctx } from '../../shared/context.js';

/**
 * A suggestion list's reads in one prepared statement (one round trip, planned once per connection): the
 * past queries starting with the prefix, whether any vocabulary term starts with the last word (and, when
 * none does, its typo candidates), and the best product and collection titles. Every read is bounded: the
 * past queries and the title words are ranges of their prefix indexes read in index order with a LIMIT, so
 * a one-letter prefix costs what a long one does.
 */

// Title-word matches ranked per spelling of the last word, per title asked for: a one-letter prefix would
// otherwise rank a whole catalog. Products often share a title (sizes, colours as products of their own), so
// a dozen matches per title keeps the list full.
export const CANDIDATES_PER_TITLE = 12;

// Past queries read for each suggestion list: more than asked, as corrected forms may merge and some not qualify.
export const PAST_QUERIES = 20;

/** What a suggestion list is computed from, as the statement reads it. */
export interface SuggestReads {
  /** Past queries starting with the prefix, searched by enough clients, with results, not blocked; best first. */
  past: string[];
  /** Vocabulary terms near the last word when the typo check was asked and no term starts with it; otherwise empty. */
  typoTerms: string[];
  /** Product and collection titles, best first, distinct case-insensitively. */
  titles: Array<{ type: 'product' | 'collection'; id: string; text: string }>;
}

export interface SuggestInput {
  prefix: string;
  /** The last typed word and its typo alternatives: the first is the word as typed. */
  alternatives: string[];
  /** The other typed words (letters and digits only): each must start a word of the title. */
  heads: string[];
  /** Titles to return (more than the list shows: past queries may repeat some). */
  titles: number;
  minClients: number;
  readPast: boolean;
  /** Whether to read the last word's typo candidates when no vocabulary term starts with it. */
  typoCheck: boolean;
}

const MAX_CHAR = '\u{10FFFF}';

// $1 project, $2 prefix, $3 last word as typed, $4 title patterns of the other words, $5 spellings of the
// last word, $6 any-spelling tsquery, $7 as-typed tsquery, $8 titles, $9 minimum clients, $10 read past
// queries, $11 typo check, $12 title-word matches per spelling. Tiers: the title starts with what was typed
// (3); each typed word starts a word of it as typed (2); only through a typo correction of the last word (1).
// Products half a tier above collections.
const SUGGEST_SQL = `
WITH past AS (
  SELECT s.query FROM search_query_stats s
  WHERE $10::boolean AND s.project_id = $1 AND s.client_count >= $9::int AND s.last_result_count > 0
    AND s.query ~>=~ $2::text AND s.query ~<~ ($2::text || '${MAX_CHAR}')
    AND NOT EXISTS (SELECT 1 FROM search_suggestion_blocks b WHERE b.project_id = s.project_id AND b.query = s.query)
  ORDER BY s.client_count DESC, s.search_count DESC, s.query LIMIT ${PAST_QUERIES}
), known AS (
  SELECT NOT $11::boolean OR EXISTS (
    SELECT 1 FROM search_terms t WHERE t.project_id = $1 AND t.doc_count > 0
      AND t.term ~>=~ $3::text AND t.term ~<~ ($3::text || '${MAX_CHAR}')) AS known
), candidates AS (
  SELECT c.product_id, c.title, c.title_norm, a.n - 1 AS alt
  FROM unnest($5::text[]) WITH ORDINALITY AS a(spelling, n)
  CROSS JOIN LATERAL (
    SELECT w.product_id, w.title, w.title_norm FROM search_title_words w
    WHERE w.project_id = $1 AND w.word <> '' AND w.word ~>=~ a.spelling AND w.word ~<~ (a.spelling || '${MAX_CHAR}')
      AND w.title_norm ~ ALL ($4::text[])
    ORDER BY w.word USING ~<~, w.title_len, w.title_norm LIMIT $12::int
  ) c
), ranked AS (
  SELECT DISTINCT ON (lower(text)) type, id, text, score FROM (
    SELECT 'product' AS type, c.product_id AS id, c.title AS text,
           CASE WHEN left(c.title_norm, length($2::text)) = $2::text THEN 3 WHEN c.alt = 0 THEN 2 ELSE 1 END + 0.5 AS score
    FROM candidates c
    UNION ALL
    SELECT 'collection', c.id, c.title,
           CASE WHEN left(lower(unaccent(c.title)), length($2::text)) = $2::text THEN 3
                WHEN to_tsvector('simple', unaccent(c.title)) @@ to_tsquery('simple', $7::text) THEN 2 ELSE 1 END
    FROM collections c
    WHERE $6::text <> '' AND c.project_id = $1 AND to_tsvector('simple', unaccent(c.title)) @@ to_tsquery('simple', $6::text)
  ) x ORDER BY lower(text), score DESC, length(text), id
)
SELECT
  ARRAY(SELECT query FROM past) AS past,
  ARRAY(SELECT term FROM search_term_candidates($1, ARRAY[$3::text]) WHERE NOT (SELECT known FROM known) AND term IS NOT NULL) AS "typoTerms",
  (SELECT coalesce(json_agg(json_build_object('type', r.type, 'id', r.id, 'text', r.text) ORDER BY r.score DESC, length(r.text), r.text), '[]')
   FROM (SELECT * FROM ranked ORDER BY score DESC, length(text), text LIMIT $8::int) r) AS titles`;

const suggestReads = preparedStatement<SuggestReads>('search_suggest', SUGGEST_SQL);

/** A tsquery matching titles with a word starting with each typed word, the last in any of its spellings ('' for none). */
function prefixQuery(heads: string[], spellings: string[]): string {
  return spellings.map((s) => `(${[...heads, s].map((w) => `${w}:*`).join(' & ')})`).join(' | ');
}

/** Reads what a suggestion list is computed from in one statement (prepared on the project's pool when there is one). */
export async function readSuggestions(ctx: Ctx, input: SuggestInput): Promise<SuggestReads> {
  const values = [
    ctx.project.id,
    input.prefix,
    input.alternatives[0] ?? '',
    input.heads.map((w) => `(^|[^[:alnum:]])${w}`),
    input.alternatives,
    prefixQuery(input.heads, input.alternatives),
    prefixQuery(input.heads, input.alternatives.slice(0, 1)),
    input.titles,
    input.minClients,
    input.readPast,
    input.typoCheck && input.alternatives.length > 0,
    input.titles * CANDIDATES_PER_TITLE,
  ];
  const pool = poolOf(ctx.db);
  const [row] = pool
    ? await suggestReads(pool, values)
    : await ctx.db.$queryRawUnsafe<SuggestReads[]>(SUGGEST_SQL, ...values);
  return row;
}
