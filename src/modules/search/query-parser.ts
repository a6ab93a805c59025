/**
 * The search query language, pure: plain words (all must match), "quoted phrases", -term and -"phrase"
 * exclusions, OR between terms or phrases, prefix match on the last word. Never throws: malformed input
 * degrades to the plain search of its words.
 */

export type Term = { kind: 'word'; text: string; prefix: boolean } | { kind: 'phrase'; text: string };

/** Alternatives, one of which must match. */
export type Clause = Term[];

export interface ParsedQuery {
  must: Clause[];
  exclude: Term[];
}

const SPECIAL_LETTERS: Record<string, string> = {
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

// Printable ASCII and its whitespace have no accents to remove and no letters to replace (NFKD leaves them as they are).
const ASCII = /^[\t-\r\x20-\x7e]*$/;

/** Lowercased, accents removed (as PostgreSQL's unaccent does for Latin letters), whitespace collapsed. */
export function normalizeText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase().replace(/\s+/g, ' ').trim();
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[øæœßłđðþı]/g, (c) => SPECIAL_LETTERS[c] ?? c)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The query as analytics and merchandising rules see it: normalized, quotes removed. */
export function normalizeQuery(q: string): string {
  return normalizeText(q.replace(/"/g, ' '));
}

// A word must hold a letter or a digit; punctuation-only tokens ("&", "!!") are dropped.
const meaningful = (text: string) => /[\p{L}\p{N}]/u.test(text);
const trimPunctuation = (text: string) => text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

interface Token {
  type: 'term' | 'or';
  negated: boolean;
  term?: Term;
}

function tokenize(q: string): Token[] {
  const text = q.replace(/\s+/g, ' ').trim(); // case kept: OR is an operator only in capitals
  // An unbalanced quote is dropped (the last one): its words become plain words.
  const quotes = (text.match(/"/g) ?? []).length;
  const balanced =
    quotes % 2 === 0 ? text : text.slice(0, text.lastIndexOf('"')) + ' ' + text.slice(text.lastIndexOf('"') + 1);
  const tokens: Token[] = [];
  const pattern = /(-?)"([^"]*)"|(\S+)/g;
  for (const match of balanced.matchAll(pattern)) {
    if (match[2] !== undefined) {
      const phrase = normalizeText(match[2]).split(' ').map(trimPunctuation).filter(meaningful).join(' ');
      if (phrase) tokens.push({ type: 'term', negated: match[1] === '-', term: { kind: 'phrase', text: phrase } });
      continue;
    }
    const raw = match[3];
    if (raw === 'OR') {
      tokens.push({ type: 'or', negated: false });
      continue;
    }
    const negated = raw.startsWith('-');
    const word = trimPunctuation(normalizeText(raw));
    if (!meaningful(word)) continue; // a lone "-" or punctuation
    tokens.push({ type: 'term', negated, term: { kind: 'word', text: word, prefix: false } });
  }
  return tokens;
}

/** Parses a query; the last plain word is a prefix unless the query ends with a space or it is negated. */
export function parseQuery(q: string): ParsedQuery {
  const tokens = tokenize(q);
  const must: Clause[] = [];
  const exclude: Term[] = [];
  let joinNext = false;
  for (const token of tokens) {
    if (token.type === 'or') {
      joinNext = must.length > 0;
      continue;
    }
    if (token.negated) {
      exclude.push(token.term!);
      joinNext = false;
      continue;
    }
    if (joinNext) must[must.length - 1].push(token.term!);
    else must.push([token.term!]);
    joinNext = false;
  }
  if (must.length === 0) {
    // Only exclusions: search for what was written instead of returning nothing or everything.
    return { must: exclude.map((term) => [term]), exclude: [] };
  }
  const lastClause = must[must.length - 1];
  const last = lastClause[lastClause.length - 1];
  if (last.kind === 'word' && !/\s$/.test(q) && tokens[tokens.length - 1]?.term === last) last.prefix = true;
  return { must, exclude };
}

/** Every plain word of the query (for typo correction), without repeats. */
export function queryWords(parsed: ParsedQuery): string[] {
  const words = parsed.must
    .flat()
    .filter((t) => t.kind === 'word')
    .map((t) => t.text);
  return [...new Set(words)];
}
