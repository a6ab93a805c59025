/** Text operations as PostgreSQL performs them, pure: byte-order comparison, pg_trgm trigrams, levenshtein. */

/** Compares by code point, which is UTF-8 byte order (PostgreSQL's `~<~`, and its C and C.UTF-8 collations). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate half belongs to a code point above U+FFFF: it sorts after every other UTF-16 unit.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

const MAX_CHAR = '\u{10FFFF}';

/**
 * Whether `text` lies in [prefix, prefix || U+10FFFF) in byte order: the statements' prefix range. Only a text
 * starting with `prefix` can (one that differs earlier sorts below or above both ends), and of those all but
 * U+10FFFF itself (or something unpaired) next: compared in full only when a surrogate follows the prefix.
 */
export function inPrefixRange(text: string, prefix: string): boolean {
  if (!text.startsWith(prefix)) return false;
  if (text.length === prefix.length) return true;
  const next = text.charCodeAt(prefix.length);
  return next < 0xd800 || next > 0xdfff || compareCodePoints(text, prefix + MAX_CHAR) < 0;
}

/** The first position in `sorted` (code point order; an array of texts or PackedTexts) whose text is not below `text`. */
export function lowerBound(
  sorted: { readonly length: number; at(i: number): string | undefined },
  text: string,
): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareCodePoints(sorted.at(mid)!, text) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * pg_trgm's trigrams of one word of letters (a vocabulary term or a typed word, lower case): the distinct runs
 * of three characters of the word padded with two spaces before and one after.
 */
export function trigramsOf(word: string): string[] {
  const chars = [...`  ${word} `];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars[i] + chars[i + 1] + chars[i + 2]);
  return [...grams];
}

/** pg_trgm's similarity from shared and total trigram counts, a float4 as PostgreSQL computes it. */
export const trigramSimilarity = (shared: number, countA: number, countB: number): number =>
  Math.fround(shared / (countA + countB - shared));

/** Whether the Levenshtein distance (insert, delete, substitute cost 1) between `a` and `b` is at most `max`. */
export function levenshteinWithin(a: string, b: string, max: number): boolean {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return false;
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > max) return false;
    previous = row;
  }
  return previous[t.length] <= max;
}
