/** Turns a query into what the SQL runs: parsed clauses with synonyms and typo corrections, pure. */
import { parseQuery, queryWords, type Clause, type ParsedQuery, type Term } from './query-parser.js';
import { STOP_WORDS } from './stopwords.js';
import { expandSynonyms, synonymMap, type SynonymRule, type SynonymUse } from './synonyms-expand.js';
import { chooseCorrections, type Candidate, type Correction } from './typo.js';

export interface VocabularyHit {
  word: string;
  term: string | null;
  docCount: number | null;
  prefixKnown: boolean;
}

export interface QueryPlan {
  /** With corrections: what finds the matches. */
  full: ParsedQuery;
  /** Without corrections (null when nothing was corrected): matches of this rank first. */
  exact: ParsedQuery | null;
  corrections: Correction[];
  synonyms: SynonymUse[];
  /** Every alternative of the full query, for explain. */
  terms: Term[];
  /** Per clause of `full.must`: the words as typed, and whether relaxation may leave the clause unmatched. */
  words: Array<{ text: string; relaxable: boolean }>;
  /** The clause holding the head noun of the query's first noun phrase (see headClause), or null. */
  head: number | null;
  /** The typed words in order, as a product title would read (empty with OR): an equal title ranks first. */
  titleText: string;
  /** Pairs of words typed next to each other (no stop word between, letters and digits only, at most 8). */
  pairs: Array<[string, string]>;
}

/** Drops clauses that are a lone stop word when other clauses remain (stemming would make them unmatchable). */
export function withoutStopWords(parsed: ParsedQuery): ParsedQuery {
  const kept = parsed.must.filter((c) => !(c.length === 1 && c[0].kind === 'word' && STOP_WORDS.has(c[0].text)));
  return kept.length > 0 ? { ...parsed, must: kept } : parsed;
}

/** The corrections of each word of the query from its vocabulary candidates (a prefix some term starts with is not corrected). */
export function correctionsFor(parsed: ParsedQuery, vocabulary: VocabularyHit[]): Map<string, Correction[]> {
  const byWord = new Map<string, { candidates: Candidate[]; prefixKnown: boolean }>();
  for (const hit of vocabulary) {
    const entry = byWord.get(hit.word) ?? { candidates: [], prefixKnown: hit.prefixKnown };
    if (hit.term !== null) entry.candidates.push({ term: hit.term, docCount: hit.docCount ?? 0 });
    byWord.set(hit.word, entry);
  }
  const prefixes = new Set(
    parsed.must
      .flat()
      .filter((t) => t.kind === 'word' && t.prefix)
      .map((t) => t.text),
  );
  const result = new Map<string, Correction[]>();
  for (const word of queryWords(parsed)) {
    const entry = byWord.get(word);
    if (!entry || (prefixes.has(word) && entry.prefixKnown)) continue;
    const corrections = chooseCorrections(word, entry.candidates);
    if (corrections.length > 0) result.set(word, corrections);
  }
  return result;
}

const isStopWord = (clause: Clause) =>
  clause.length === 1 && clause[0].kind === 'word' && STOP_WORDS.has(clause[0].text);

/**
 * The index (among the clauses that are not lone stop words) of the head noun of the query's first noun
 * phrase: in English the last word before the first stop word that follows a content word ("grey hoodie
 * for the weekend": hoodie), else the last word ("merino wool sweater": sweater). Null without content.
 */
export function headClause(clauses: Clause[]): number | null {
  let head: number | null = null;
  let kept = 0;
  for (const clause of clauses) {
    if (isStopWord(clause)) {
      if (head !== null) break;
      continue;
    }
    head = kept;
    kept += 1;
  }
  return head;
}

/** Words joined by single spaces, everything but letters and digits a separator (as titles are compared). */
export function titleWords(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const MAX_PAIRS = 8;
const PAIR_WORD = /^[\p{L}\p{N}]+$/u;

/** Adjacent plain words of the typed query, neither a stop word: a title holding them side by side scores more. */
export function adjacentPairs(clauses: Clause[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const word = (c: Clause | undefined) =>
    c && c.length === 1 && c[0].kind === 'word' && !STOP_WORDS.has(c[0].text) && PAIR_WORD.test(c[0].text)
      ? c[0].text
      : null;
  for (let i = 0; i + 1 < clauses.length && pairs.length < MAX_PAIRS; i++) {
    const [a, b] = [word(clauses[i]), word(clauses[i + 1])];
    if (a && b && a !== b) pairs.push([a, b]);
  }
  return pairs;
}

/** The plan of a query: synonyms expanded, then each corrected word given its corrections as alternatives. */
export function planQuery(q: string, groups: SynonymRule[], vocabulary: VocabularyHit[]): QueryPlan {
  const typed = parseQuery(q);
  const parsed = withoutStopWords(typed);
  const corrections = correctionsFor(parsed, vocabulary);
  const { query: expanded, used, spans } = expandSynonyms(parsed, synonymMap(groups));
  const withCorrections: Clause[] = expanded.must.map((clause) =>
    clause.flatMap((term) => {
      const fixes = term.kind === 'word' ? corrections.get(term.text) : undefined;
      return [term, ...(fixes ?? []).map((c): Term => ({ kind: 'word', text: c.to, prefix: false }))];
    }),
  );
  const full = { must: withCorrections, exclude: expanded.exclude };
  const unique = new Map(withCorrections.flat().map((t) => [`${t.kind}:${t.text}`, t]));
  // A clause made of plain words only (with their synonyms and corrections) may go unmatched; a quoted
  // phrase or an OR group is what the shopper asked for explicitly and must always match.
  const plain = (i: number) => parsed.must[i].length === 1 && parsed.must[i][0].kind === 'word';
  const words = spans.map((span) => ({
    text: span.map((i) => parsed.must[i].map((t) => t.text).join(' OR ')).join(' '),
    relaxable: span.every(plain),
  }));
  const keptHead = headClause(typed.must);
  const head = keptHead === null ? null : spans.findIndex((span) => span.includes(keptHead));
  const hasOr = typed.must.some((c) => c.length > 1);
  return {
    full,
    exact: corrections.size > 0 ? expanded : null,
    corrections: [...corrections.values()].flat(),
    synonyms: used,
    terms: [...unique.values()],
    words,
    head: head === -1 ? null : head,
    titleText: hasOr ? '' : titleWords(typed.must.map((c) => c[0].text).join(' ')),
    pairs: adjacentPairs(typed.must),
  };
}

// PostgreSQL's levenshtein refuses arguments over 255 characters; no word that long gets a typo correction.
const MAX_CORRECTED_WORD = 255;

/** The words whose vocabulary candidates the plan needs (words too long for typo correction left out). */
export function wordsToCheck(q: string): string[] {
  return queryWords(withoutStopWords(parseQuery(q))).filter((word) => word.length <= MAX_CORRECTED_WORD);
}
