import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { normalizeText } from './query-parser.js';
import { STOP_WORDS } from './stopwords.js';
import { chooseCorrections, damerauDistance, editBudget, isCorrectable } from './typo.js';
import { cachedSearch } from './search.service.js';
import { readSuggestions, type SuggestInput, type SuggestReads } from './suggest.statements.js';
import { suggestIndexOf, type SuggestIndex } from './suggest-index.js';
import {
  indexableWord,
  knownTerms,
  readSuggestionsFromIndex,
  termCandidates,
  type TermCandidates,
} from './suggest-index.reads.js';

type Suggestion = components['schemas']['Suggestion'];

const TYPO_FROM = 5;

/** The start of vocabulary terms within the prefix's edit budget of it (up to three), from its typo candidates. */
function correctedPrefixes(word: string, terms: string[]): string[] {
  const budget = editBudget(word);
  const fixes = new Set<string>();
  for (const term of terms) {
    const near = [word.length - 1, word.length, word.length + 1].some(
      (n) => n > 0 && damerauDistance(word, term.slice(0, n)) <= budget,
    );
    if (near) fixes.add(term.slice(0, word.length));
  }
  return [...fixes].slice(0, 3);
}

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
async function correctedQueries(ctx: Ctx, queries: string[], index?: SuggestIndex): Promise<string[]> {
  const words = [...new Set(queries.flatMap((q) => q.split(' ')).filter(isCorrectable))];
  const candidates = new Map<string, TermCandidates>();
  if (index && words.every(indexableWord)) {
    for (const word of words) candidates.set(word, termCandidates(index.vocabulary, word));
  } else if (words.length > 0) {
    const rows = await ctx.db.$queryRaw<Array<{ word: string; term: string | null; doc_count: number | null }>>`
      SELECT word, term, doc_count FROM search_term_candidates(${ctx.project.id}, ${words}::text[])`;
    const read = new Map<string, Array<{ term: string; docCount: number }>>();
    for (const row of rows) {
      if (!read.has(row.word)) read.set(row.word, []);
      if (row.term !== null) read.get(row.word)!.push({ term: row.term, docCount: row.doc_count ?? 0 });
    }
    for (const [word, list] of read) candidates.set(word, list);
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
 * The past queries that may be suggested, as corrected, best first, from those read for the prefix (searched
 * by at least SUGGEST_MIN_CLIENTS distinct clients, with results the last time, not blocked): plain words
 * only, every word (once corrected) a word of the catalog or a stop word, and the corrected form not blocked.
 */
async function suggestablePastQueries(ctx: Ctx, popular: string[], index?: SuggestIndex): Promise<string[]> {
  const plain = popular.filter((q) => PLAIN_QUERY.test(q));
  if (plain.length === 0) return [];
  const corrected = await correctedQueries(ctx, plain, index);
  const words = [...new Set(corrected.flatMap((q) => q.split(' ')).filter((w) => !STOP_WORDS.has(w)))];
  const { known, blocked } = index
    ? { known: knownTerms(index.vocabulary, words), blocked: index.past.blocked }
    : await readKnownAndBlocked(ctx, words, corrected);
  return corrected.filter(
    (q) => !blocked.has(q) && q.split(' ').every((w) => STOP_WORDS.has(w) || known.has(w)) && isSafeSuggestionText(q),
  );
}

/** Which of `words` are vocabulary terms, and which of `queries` are blocked. */
async function readKnownAndBlocked(ctx: Ctx, words: string[], queries: string[]) {
  const [found] = await ctx.db.$queryRaw<Array<{ known: string[]; blocked: string[] }>>`
    SELECT
      (SELECT coalesce(array_agg(term), '{}') FROM search_terms
        WHERE project_id = ${ctx.project.id} AND doc_count > 0 AND term = ANY(${words}::text[])) AS known,
      (SELECT coalesce(array_agg(query), '{}') FROM search_suggestion_blocks
        WHERE project_id = ${ctx.project.id} AND query = ANY(${queries}::text[])) AS blocked`;
  return { known: new Set(found.known), blocked: new Set(found.blocked) };
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
  options: { cache?: boolean; index?: boolean } = {},
): Promise<Suggestion[]> {
  const prefix = normalizeText(q);
  return cachedSearch(ctx, options.cache ?? false, `suggest|${limit}|${prefix}`, SUGGEST_TABLES, () =>
    computeSuggestions(ctx, prefix, limit, options.index ?? false),
  );
}

async function computeSuggestions(ctx: Ctx, prefix: string, limit: number, useIndex: boolean): Promise<Suggestion[]> {
  const words = prefix
    .split(' ')
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter(Boolean);
  const last = words.at(-1);
  const input = {
    prefix,
    alternatives: last === undefined ? [] : [last],
    heads: words.slice(0, -1),
    // Past queries take at most half the list (rounded up); titles that repeat one of them are skipped.
    titles: limit + Math.ceil(limit / 2),
    minClients: SUGGEST_MIN_CLIENTS,
    readPast: true,
    typoCheck: last !== undefined && last.length >= TYPO_FROM && isCorrectable(last),
  };
  // The process's index answers when it is exact and every typed word is one it answers exactly for.
  const index = useIndex && words.every(indexableWord) ? await suggestIndexOf(ctx, SUGGEST_MIN_CLIENTS) : undefined;
  const read = (given: SuggestInput): Promise<SuggestReads> | SuggestReads =>
    index && given.alternatives.every(indexableWord)
      ? readSuggestionsFromIndex(index, given)
      : readSuggestions(ctx, given);
  const reads = await read(input);
  let titles = reads.titles;
  // No vocabulary term starts with the last word: titles through its typo corrections too.
  const fixes = last === undefined ? [] : correctedPrefixes(last, reads.typoTerms);
  if (fixes.length > 0)
    titles = (await read({ ...input, alternatives: [last!, ...fixes], readPast: false, typoCheck: false })).titles;
  const past = reads.past.length > 0 ? await suggestablePastQueries(ctx, reads.past, index) : [];
  const suggestions: Suggestion[] = past.slice(0, Math.ceil(limit / 2)).map((text) => ({ text, type: 'query' }));
  const seen = new Set(suggestions.map((s) => s.text));
  for (const row of titles) {
    if (suggestions.length >= limit) break;
    if (seen.has(row.text.toLowerCase()) || !isSafeSuggestionText(row.text)) continue;
    seen.add(row.text.toLowerCase());
    suggestions.push({ text: row.text, type: row.type, id: row.id });
  }
  return suggestions;
}
