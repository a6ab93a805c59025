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

/** The plan of a query: synonyms expanded, then each corrected word given its corrections as alternatives. */
export function planQuery(q: string, groups: SynonymRule[], vocabulary: VocabularyHit[]): QueryPlan {
  const parsed = withoutStopWords(parseQuery(q));
  const corrections = correctionsFor(parsed, vocabulary);
  const { query: expanded, used } = expandSynonyms(parsed, synonymMap(groups));
  const withCorrections: Clause[] = expanded.must.map((clause) =>
    clause.flatMap((term) => {
      const fixes = term.kind === 'word' ? corrections.get(term.text) : undefined;
      return [term, ...(fixes ?? []).map((c): Term => ({ kind: 'word', text: c.to, prefix: false }))];
    }),
  );
  const full = { must: withCorrections, exclude: expanded.exclude };
  const unique = new Map(withCorrections.flat().map((t) => [`${t.kind}:${t.text}`, t]));
  return {
    full,
    exact: corrections.size > 0 ? expanded : null,
    corrections: [...corrections.values()].flat(),
    synonyms: used,
    terms: [...unique.values()],
  };
}

// PostgreSQL's levenshtein refuses arguments over 255 characters; no word that long gets a typo correction.
const MAX_CORRECTED_WORD = 255;

/** The words whose vocabulary candidates the plan needs (words too long for typo correction left out). */
export function wordsToCheck(q: string): string[] {
  return queryWords(withoutStopWords(parseQuery(q))).filter((word) => word.length <= MAX_CORRECTED_WORD);
}
