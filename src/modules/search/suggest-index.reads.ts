import { LRUCache } from 'lru-cache';
import type { Vocabulary, VocabularySegments } from './search-vocabulary.js';
import type { CatalogIndex, IndexedTitle, PastIndex, SuggestIndex } from './suggest-index.js';
import {
  compareCodePoints,
  inPrefixRange,
  levenshteinWithin,
  lowerBound,
  trigramSimilarity,
  trigramsOf,
} from './suggest-index.text.js';
import { CANDIDATES_PER_TITLE, PAST_QUERIES, type SuggestInput, type SuggestReads } from './suggest.statements.js';

/**
 * The suggest statement's reads (suggest.statements.ts) and search_term_candidates answered from a project's
 * suggest index, with the same results in the same order. Only for typed words the index can answer exactly
 * (indexableWord); the callers read from the database for any other.
 */

// Words PostgreSQL's text search parser takes whole as one token (a letters-digits mix such as `1e5` or `8e2a`
// may be split), and whose characters are alphanumeric in every locale: the in-process matches are exact for these.
const INDEXABLE_WORD = /^(?:[a-z]+[0-9]*|[0-9]+)$/;

/** Whether the index answers exactly for a typed word (otherwise the statement must). */
export const indexableWord = (word: string): boolean => INDEXABLE_WORD.test(word);

// search_term_candidates: trigram similarity at least this (its pg_trgm.similarity_threshold), at most 20 per word.
const SIMILARITY_THRESHOLD = 0.15;
const CANDIDATES_PER_WORD = 20;
// levenshtein refuses longer arguments: such words and terms are left out of correction.
const MAX_LEVENSHTEIN_LENGTH = 255;

export type TermCandidates = ReadonlyArray<{ readonly term: string; readonly docCount: number }>;

/**
 * Per catalog (its vocabulary), the candidates of the words asked for lately, up to CACHED_WORDS (least recently
 * used out): a misspelling recurs across searches and suggestions, and its candidates depend on the vocabulary alone.
 */
const candidatesByCatalog = new WeakMap<object, LRUCache<string, TermCandidates>>();
const CACHED_WORDS = 2_000;

/** Forgets the typo candidates kept for `vocabulary`'s words (SEARCH_INDEX_CACHES=off, index-caches.ts). */
export function forgetCandidates(vocabulary: Vocabulary | VocabularySegments): void {
  candidatesByCatalog.delete(vocabulary);
}

/** The candidates of a word (as search_term_candidates finds them): best first, up to CANDIDATES_PER_WORD. */
export function termCandidates(vocabulary: Vocabulary | VocabularySegments, word: string): TermCandidates {
  let cached = candidatesByCatalog.get(vocabulary);
  if (!cached) candidatesByCatalog.set(vocabulary, (cached = new LRUCache({ max: CACHED_WORDS })));
  let candidates = cached.get(word);
  if (candidates === undefined) {
    const found =
      'base' in vocabulary
        ? [
            ...candidatesOf(vocabulary.base, word, vocabulary.changed),
            ...(vocabulary.overlay ? candidatesOf(vocabulary.overlay, word) : []),
          ]
        : candidatesOf(vocabulary, word);
    candidates = Object.freeze(bestCandidates(found, word));
    cached.set(word, candidates);
  }
  return candidates;
}

type Candidate = { term: string; docCount: number; similarity: number };

/** The terms of `vocabulary` (but those `without`) close enough to `word`, in no order. */
function candidatesOf(vocabulary: Vocabulary, word: string, without?: ReadonlySet<string>): Candidate[] {
  const grams = trigramsOf(word);
  const length = [...word].length;
  if (length > MAX_LEVENSHTEIN_LENGTH) return [];
  const maxEdits = length >= 8 ? 3 : 2;
  const shared = new Map<number, number>();
  for (const gram of grams) {
    for (const term of vocabulary.trigramTerms.get(gram) ?? []) shared.set(term, (shared.get(term) ?? 0) + 1);
  }
  const found: Candidate[] = [];
  for (const [i, count] of shared) {
    const similarity = trigramSimilarity(count, grams.length, vocabulary.termTrigramCounts[i]);
    const term = vocabulary.terms[i];
    if (
      similarity >= SIMILARITY_THRESHOLD &&
      vocabulary.termLengths[i] <= MAX_LEVENSHTEIN_LENGTH &&
      !without?.has(term) &&
      levenshteinWithin(term, word, maxEdits)
    )
      found.push({ term, docCount: vocabulary.termDocCounts[i], similarity });
  }
  return found;
}

function bestCandidates(found: Candidate[], word: string): TermCandidates {
  return found
    .sort(
      (a, b) =>
        Number(b.term === word) - Number(a.term === word) ||
        b.similarity - a.similarity ||
        b.docCount - a.docCount ||
        compareCodePoints(a.term, b.term),
    )
    .slice(0, CANDIDATES_PER_WORD)
    .map(({ term, docCount }) => Object.freeze({ term, docCount }));
}

/** Whether a vocabulary term (doc_count > 0) starts with `word`. */
export function termStartsWith(vocabulary: Vocabulary | VocabularySegments, word: string): boolean {
  if (!('base' in vocabulary)) {
    const i = lowerBound(vocabulary.terms, word);
    return i < vocabulary.terms.length && inPrefixRange(vocabulary.terms[i], word);
  }
  if (vocabulary.overlay && termStartsWith(vocabulary.overlay, word)) return true;
  const { terms } = vocabulary.base;
  for (let i = lowerBound(terms, word); i < terms.length && inPrefixRange(terms[i], word); i++)
    if (!vocabulary.changed.has(terms[i])) return true;
  return false;
}

/** Whether `vocabulary` holds `term`. */
function holdsTerm(vocabulary: Vocabulary, term: string): boolean {
  const i = lowerBound(vocabulary.terms, term);
  return i < vocabulary.terms.length && vocabulary.terms[i] === term;
}

/** The vocabulary terms among `words`. */
export function knownTerms(vocabulary: VocabularySegments, words: string[]): Set<string> {
  return new Set(
    words.filter((word) =>
      vocabulary.changed.has(word)
        ? vocabulary.overlay !== null && holdsTerm(vocabulary.overlay, word)
        : holdsTerm(vocabulary.base, word),
    ),
  );
}

/** Past queries in the prefix's range, searched by enough clients, with results, not blocked; best first. */
function pastQueries(past: PastIndex, prefix: string): string[] {
  const found: number[] = [];
  for (let i = lowerBound(past.queries, prefix); i < past.queries.length; i++) {
    if (!inPrefixRange(past.queries[i], prefix)) break;
    if (!past.blocked.has(past.queries[i])) found.push(i);
  }
  return found
    .sort(
      (a, b) =>
        past.clientCounts[b] - past.clientCounts[a] ||
        past.searchCounts[b] - past.searchCounts[a] ||
        compareCodePoints(past.queries[a], past.queries[b]),
    )
    .slice(0, PAST_QUERIES)
    .map((i) => past.queries[i]);
}

interface Ranked {
  type: 'product' | 'collection';
  id: string;
  text: string;
  lower: string;
  length: number;
  score: number;
}

/**
 * Whether `head` starts a word of title_norm, as `title_norm ~ '(^|[^[:alnum:]])head'` decides for a head of
 * ASCII letters and digits: found at the start, or after a character that is not alphanumeric.
 */
function startsAWord(title: IndexedTitle, head: string): boolean {
  if (title.normWords) return title.normWords.some((word) => word.startsWith(head));
  for (let at = title.norm.indexOf(head); at >= 0; at = title.norm.indexOf(head, at + 1)) {
    if (at === 0 || !ASCII_ALNUM.test(title.norm[at - 1])) return true;
  }
  return false;
}

const ASCII_ALNUM = /[0-9A-Za-z]/;

/** Products whose title or SKU words start with `spelling` and whose title words start with every head, in index order, at most `limit`. */
function productCandidates(catalog: CatalogIndex, spelling: string, heads: string[], limit: number): number[] {
  const found: number[] = [];
  const { words, wordStarts, wordProducts } = catalog;
  for (let w = lowerBound(words, spelling); w < words.length && found.length < limit; w++) {
    if (!inPrefixRange(words[w], spelling)) break;
    for (let i = wordStarts[w]; i < wordStarts[w + 1] && found.length < limit; i++) {
      const product = wordProducts[i];
      if (product < 0) continue;
      const title = catalog.titles[catalog.productTitles[product]];
      if (heads.every((head) => startsAWord(title, head))) found.push(product);
    }
  }
  return found;
}

/** Whether some lexeme starts with each word: the tsquery `(w1:* & w2:* & ...)`. */
const matchesAll = (lexemes: string[], words: string[]) =>
  words.every((word) => lexemes.some((lexeme) => lexeme.startsWith(word)));

function rankedTitles(catalog: CatalogIndex, input: SuggestInput): Ranked[] {
  // Products sharing a title share its text and length: keep the best score of each title, then the first id.
  const byTitle = new Map<number, { score: number; id: string }>();
  input.alternatives.forEach((spelling, alt) => {
    for (const p of productCandidates(catalog, spelling, input.heads, input.titles * CANDIDATES_PER_TITLE)) {
      const position = catalog.productTitles[p];
      const score = (catalog.titles[position].norm.startsWith(input.prefix) ? 3 : alt === 0 ? 2 : 1) + 0.5;
      const id = catalog.productIds.at(p);
      const kept = byTitle.get(position);
      if (!kept || score > kept.score || (score === kept.score && compareCodePoints(id, kept.id) < 0))
        byTitle.set(position, { score, id });
    }
  });
  const rows: Ranked[] = [...byTitle].map(([position, { score, id }]) => {
    const title = catalog.titles[position];
    return { type: 'product', id, text: title.title, lower: title.lower, length: title.length, score };
  });
  if (input.alternatives.length > 0) {
    for (const c of catalog.collections) {
      if (!input.alternatives.some((spelling) => matchesAll(c.lexemes, [...input.heads, spelling]))) continue;
      const tier = c.titleNorm.startsWith(input.prefix)
        ? 3
        : matchesAll(c.lexemes, [...input.heads, input.alternatives[0]])
          ? 2
          : 1;
      rows.push({ type: 'collection', id: c.id, text: c.title, lower: c.titleLower, length: c.length, score: tier });
    }
  }
  // One per title in lower case: the best score, then the shortest, then the first id.
  const best = new Map<string, Ranked>();
  for (const row of rows) {
    const kept = best.get(row.lower);
    if (
      !kept ||
      row.score > kept.score ||
      (row.score === kept.score &&
        (row.length < kept.length || (row.length === kept.length && compareCodePoints(row.id, kept.id) < 0)))
    )
      best.set(row.lower, row);
  }
  return [...best.values()]
    .sort((a, b) => b.score - a.score || a.length - b.length || compareCodePoints(a.text, b.text))
    .slice(0, input.titles);
}

/** What readSuggestions reads, from the index; the input's words must be indexable and its minimum clients the index's. */
export function readSuggestionsFromIndex(index: SuggestIndex, input: SuggestInput): SuggestReads {
  const last = input.alternatives[0];
  const typoCheck = input.typoCheck && last !== undefined;
  const typoTerms =
    typoCheck && !termStartsWith(index.vocabulary, last)
      ? termCandidates(index.vocabulary, last).map((c) => c.term)
      : [];
  return {
    past: input.readPast ? pastQueries(index.past, input.prefix) : [],
    typoTerms,
    titles: rankedTitles(index.catalog, input).map(({ type, id, text }) => ({ type, id, text })),
  };
}
