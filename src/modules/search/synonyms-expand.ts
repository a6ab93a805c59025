/** Synonym expansion, pure: equivalent groups every way, oneway groups from their first term only. */
import type { Clause, ParsedQuery, Term } from './query-parser.js';
import { normalizeText } from './query-parser.js';

export interface SynonymRule {
  synonymType: 'equivalent' | 'oneway';
  terms: string[];
}

export interface SynonymUse {
  term: string;
  expandedTo: string[];
}

/** term -> what it also finds, from the active groups. */
export function synonymMap(groups: SynonymRule[]): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    if (from === to) return;
    if (!map.has(from)) map.set(from, new Set());
    map.get(from)!.add(to);
  };
  for (const group of groups) {
    const terms = group.terms.map(normalizeText).filter(Boolean);
    if (group.synonymType === 'oneway') {
      for (const to of terms.slice(1)) add(terms[0], to);
    } else {
      for (const from of terms) for (const to of terms) add(from, to);
    }
  }
  return map;
}

const asTerm = (text: string): Term =>
  text.includes(' ') ? { kind: 'phrase', text } : { kind: 'word', text, prefix: false };

/**
 * The query with synonyms added as alternatives: runs of consecutive single-word clauses matching a
 * (possibly multi-word) synonym term, longest first, become one clause "the run as a phrase, or a
 * synonym"; a phrase or an OR alternative equal to a term gets the synonyms beside it. `spans` holds, per
 * clause of the result, the indexes of the clauses of `parsed` it came from.
 */
export function expandSynonyms(
  parsed: ParsedQuery,
  map: Map<string, Set<string>>,
): { query: ParsedQuery; used: SynonymUse[]; spans: number[][] } {
  if (map.size === 0) return { query: parsed, used: [], spans: parsed.must.map((_, i) => [i]) };
  const maxWords = Math.max(...[...map.keys()].map((k) => k.split(' ').length));
  const used: SynonymUse[] = [];
  const must: Clause[] = [];
  const spans: number[][] = [];
  const clauses = parsed.must;
  for (let i = 0; i < clauses.length;) {
    let matched = false;
    for (let n = Math.min(maxWords, clauses.length - i); n >= 1 && !matched; n--) {
      const run = clauses.slice(i, i + n);
      if (!run.every((c) => c.length === 1 && c[0].kind === 'word')) continue;
      const key = run.map((c) => c[0].text).join(' ');
      const synonyms = map.get(key);
      if (!synonyms) continue;
      const original: Term = n === 1 ? run[0][0] : { kind: 'phrase', text: key };
      must.push([original, ...[...synonyms].map(asTerm)]);
      used.push({ term: key, expandedTo: [...synonyms] });
      spans.push(Array.from({ length: n }, (_, k) => i + k));
      i += n;
      matched = true;
    }
    if (matched) continue;
    const clause = clauses[i];
    const extra: Term[] = [];
    if (clause.length > 1 || clause[0].kind === 'phrase') {
      for (const term of clause) {
        const synonyms = map.get(term.text);
        if (!synonyms) continue;
        extra.push(...[...synonyms].map(asTerm));
        used.push({ term: term.text, expandedTo: [...synonyms] });
      }
    }
    must.push([...clause, ...extra]);
    spans.push([i]);
    i += 1;
  }
  return { query: { must, exclude: parsed.exclude }, used, spans };
}
