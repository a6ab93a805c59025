import type { components } from '../../generated/openapi.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { normalizeText } from './query-parser.js';
import { STOP_WORDS } from './stopwords.js';
import { chooseCorrections, damerauDistance, editBudget, isCorrectable } from './typo.js';
import { cachedSearch } from './search.service.js';

type Suggestion = components['schemas']['Suggestion'];

// At most this many title-word matches (per spelling of the last word) are ranked: a one-letter prefix
// would otherwise rank a whole catalog.
const TITLE_CANDIDATES = 300;
const TYPO_FROM = 5;

/** Vocabulary terms starting within the prefix's edit budget of it (a prefix of 5+ letters nothing starts with). */
async function correctedPrefixes(ctx: Ctx, word: string): Promise<string[]> {
  if (word.length < TYPO_FROM || !isCorrectable(word)) return [];
  const rows = await ctx.db.$queryRaw<Array<{ term: string | null; prefix_known: boolean }>>`
    SELECT term, prefix_known FROM search_term_candidates(${ctx.project.id}, ARRAY[${word}]::text[])`;
  if (rows.length === 0 || rows[0].prefix_known) return [];
  const budget = editBudget(word);
  const fixes = new Set<string>();
  for (const { term } of rows) {
    if (!term) continue;
    const near = [word.length - 1, word.length, word.length + 1].some(
      (n) => n > 0 && damerauDistance(word, term.slice(0, n)) <= budget,
    );
    if (near) fixes.add(term.slice(0, word.length));
  }
  return [...fixes].slice(0, 3);
}

// Past queries read for each suggestion list: more than asked, as corrected forms may merge and some not qualify.
const PAST_QUERIES = 20;

/** Distinct clients (signed-in customers, otherwise client addresses) that must have searched a query before it is suggested. */
export const SUGGEST_MIN_CLIENTS = 3;

// A suggestable query: words of letters and digits, single spaces between them (no markup, no operators).
const PLAIN_QUERY = /^[\p{L}\p{N}]+(?: [\p{L}\p{N}]+)*$/u;

// What no suggestion may hold: control characters, or what a browser could read as markup.
const UNSAFE_TEXT = /[\p{Cc}\p{Cf}]|<[\p{L}/!?]/u;

/** Whether a suggestion's text is safe to show as is: no control or format characters, nothing that reads as a tag. */
export const isSafeSuggestionText = (text: string): boolean => !UNSAFE_TEXT.test(text);

/**
 * Past queries as they should be suggested: each word the project's vocabulary does not hold replaced by
 * its best typo correction (the one search would rank first), so a query typed with a typo is suggested
 * spelled right; repeats merged, in the order given.
 */
async function correctedQueries(ctx: Ctx, queries: string[]): Promise<string[]> {
  const words = [...new Set(queries.flatMap((q) => q.split(' ')).filter(isCorrectable))];
  const candidates = new Map<string, Array<{ term: string; docCount: number }>>();
  if (words.length > 0) {
    const rows = await ctx.db.$queryRaw<Array<{ word: string; term: string | null; doc_count: number | null }>>`
      SELECT word, term, doc_count FROM search_term_candidates(${ctx.project.id}, ${words}::text[])`;
    for (const row of rows) {
      if (!candidates.has(row.word)) candidates.set(row.word, []);
      if (row.term !== null) candidates.get(row.word)!.push({ term: row.term, docCount: row.doc_count ?? 0 });
    }
  }
  const corrected = queries.map((q) =>
    q
      .split(' ')
      .map((w) => chooseCorrections(w, candidates.get(w) ?? [])[0]?.to ?? w)
      .join(' '),
  );
  return [...new Set(corrected)];
}

/**
 * The past queries that may be suggested for the prefix, as corrected, best first: searched by at least
 * SUGGEST_MIN_CLIENTS distinct clients, with results the last time, plain words only, every word (once
 * corrected) a word of the catalog or a stop word, and neither the query nor its corrected form blocked.
 */
async function suggestablePastQueries(ctx: Ctx, prefix: string): Promise<string[]> {
  const popular = await ctx.db.$queryRaw<Array<{ query: string }>>`
    SELECT s.query FROM search_query_stats s
    WHERE s.project_id = ${ctx.project.id} AND s.client_count >= ${SUGGEST_MIN_CLIENTS} AND s.last_result_count > 0
      AND s.query ~>=~ ${prefix} AND s.query ~<~ ${`${prefix}\u{10FFFF}`}
      AND NOT EXISTS (SELECT 1 FROM search_suggestion_blocks b WHERE b.project_id = s.project_id AND b.query = s.query)
    ORDER BY s.client_count DESC, s.search_count DESC, s.query LIMIT ${PAST_QUERIES}`;
  const plain = popular.map((p) => p.query).filter((q) => PLAIN_QUERY.test(q));
  if (plain.length === 0) return [];
  const corrected = await correctedQueries(ctx, plain);
  const words = [...new Set(corrected.flatMap((q) => q.split(' ')).filter((w) => !STOP_WORDS.has(w)))];
  const [found] = await ctx.db.$queryRaw<Array<{ known: string[]; blocked: string[] }>>`
    SELECT
      (SELECT coalesce(array_agg(term), '{}') FROM search_terms
        WHERE project_id = ${ctx.project.id} AND doc_count > 0 AND term = ANY(${words}::text[])) AS known,
      (SELECT coalesce(array_agg(query), '{}') FROM search_suggestion_blocks
        WHERE project_id = ${ctx.project.id} AND query = ANY(${corrected}::text[])) AS blocked`;
  const known = new Set(found.known);
  const blocked = new Set(found.blocked);
  return corrected.filter(
    (q) => !blocked.has(q) && q.split(' ').every((w) => STOP_WORDS.has(w) || known.has(w)) && isSafeSuggestionText(q),
  );
}

// What a suggestion is computed from (see cachedSearch).
const SUGGEST_TABLES = [
  'search_query_stats',
  'search_suggestion_blocks',
  'search_products',
  'search_title_words',
  'collections',
  'search_terms',
];

/**
 * Suggestions for what is being typed: popular past queries first (only those suggestablePastQueries allows,
 * spelled as corrected), then product and collection titles: starting with the prefix, then each typed word
 * starting a title word, then typo-tolerant matches. No suggestion holds control characters or markup.
 */
export async function suggest(
  ctx: Ctx,
  q: string,
  limit = 5,
  options: { cache?: boolean } = {},
): Promise<Suggestion[]> {
  const prefix = normalizeText(q);
  return cachedSearch(ctx, options.cache ?? false, `suggest|${limit}|${prefix}`, SUGGEST_TABLES, () =>
    computeSuggestions(ctx, prefix, limit),
  );
}

async function computeSuggestions(ctx: Ctx, prefix: string, limit: number): Promise<Suggestion[]> {
  const words = prefix
    .split(' ')
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter(Boolean);
  const past = await suggestablePastQueries(ctx, prefix);
  // Past queries take at most half the list (rounded up): titles keep room.
  const suggestions: Suggestion[] = past.slice(0, Math.ceil(limit / 2)).map((text) => ({ text, type: 'query' }));
  if (suggestions.length >= limit || words.length === 0) return suggestions.slice(0, limit);

  const last = words[words.length - 1];
  const alternatives = [last, ...(await correctedPrefixes(ctx, last))];
  // The other words must start a word of the title (in any order), as they did in the full-text form.
  const heads = words.slice(0, -1).map((w) => Prisma.sql`AND w.title_norm ~ ${`(^|[^[:alnum:]])${w}`}`);
  // Per alternative of the last word: a range of the title-word index, shortest titles first, capped.
  const candidates = alternatives.map(
    (alt, i) => Prisma.sql`(
      SELECT w.product_id, w.title, w.title_norm, ${i}::int AS alt FROM search_title_words w
      WHERE w.project_id = ${ctx.project.id} AND w.word <> '' AND w.word ~>=~ ${alt} AND w.word ~<~ ${`${alt}\u{10FFFF}`} ${heads.length > 0 ? Prisma.join(heads, ' ') : Prisma.empty}
      ORDER BY w.word USING ~<~, w.title_len, w.title_norm LIMIT ${TITLE_CANDIDATES})`,
  );
  const tsqueries = alternatives.map((alt) => [...words.slice(0, -1).map((w) => `${w}:*`), `${alt}:*`].join(' & '));
  const query = Prisma.join(
    tsqueries.map((t) => Prisma.sql`to_tsquery('simple', ${t})`),
    ' || ',
  );
  const length = [...prefix].length;
  // Tiers: the title starts with what was typed (3); each typed word starts a word of it as typed (2); only
  // through a typo correction of the last word (1). Products half a tier above collections.
  const productTier = Prisma.sql`CASE WHEN left(c.title_norm, ${length}) = ${prefix} THEN 3 WHEN c.alt = 0 THEN 2 ELSE 1 END`;
  const collectionTier = Prisma.sql`CASE WHEN left(lower(unaccent(c.title)), ${length}) = ${prefix} THEN 3
    WHEN to_tsvector('simple', unaccent(c.title)) @@ to_tsquery('simple', ${tsqueries[0]}) THEN 2 ELSE 1 END`;
  const rows = await ctx.db.$queryRaw<
    Array<{ type: 'product' | 'collection'; id: string; text: string; score: number }>
  >`
    WITH q AS (SELECT ${query} AS q)
    SELECT type, id, text, score FROM (
      SELECT DISTINCT ON (lower(text)) * FROM (
        SELECT 'product' AS type, c.product_id AS id, c.title AS text, ${productTier} + 0.5 AS score
        FROM (${Prisma.join(candidates, ' UNION ALL ')}) c
        UNION ALL
        SELECT 'collection', c.id, c.title, ${collectionTier}
        FROM collections c WHERE c.project_id = ${ctx.project.id} AND to_tsvector('simple', unaccent(c.title)) @@ (SELECT q FROM q)
      ) x ORDER BY lower(text), score DESC, length(text), id
    ) d ORDER BY score DESC, length(text), text LIMIT ${limit}`;
  const seen = new Set(suggestions.map((s) => s.text));
  for (const row of rows) {
    if (suggestions.length >= limit) break;
    if (seen.has(row.text.toLowerCase()) || !isSafeSuggestionText(row.text)) continue;
    seen.add(row.text.toLowerCase());
    suggestions.push({ text: row.text, type: row.type, id: row.id });
  }
  return suggestions;
}
