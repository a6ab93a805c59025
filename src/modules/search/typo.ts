/** Typo tolerance rules, pure: the edit budget of a word, Damerau distance, and the choice of corrections. */

export interface Candidate {
  term: string;
  docCount: number;
}

export interface Correction {
  from: string;
  to: string;
  distance: number;
}

/** Edits a word may be away from a correction: 1-3 characters none, 4-7 one, 8 or more two. */
export function editBudget(word: string): number {
  const length = [...word].length;
  if (length <= 3) return 0;
  return length <= 7 ? 1 : 2;
}

/** Whether a word may be corrected at all: letters only (numbers, SKUs and codes never are). */
export function isCorrectable(word: string): boolean {
  return /^\p{L}+$/u.test(word) && editBudget(word) > 0;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions cost 1. */
export function damerauDistance(a: string, b: string): number {
  const s = [...a];
  const t = [...b];
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 0; j <= t.length; j++) d[0][j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[s.length][t.length];
}

const MAX_CORRECTIONS = 3;

/**
 * The corrections of a word that is not in the vocabulary: candidates within its edit budget, the
 * closest distance only, most frequent first (at most 3). None for a known or uncorrectable word.
 */
export function chooseCorrections(word: string, candidates: readonly Candidate[]): Correction[] {
  if (!isCorrectable(word) || candidates.some((c) => c.term === word)) return [];
  const budget = editBudget(word);
  const scored = candidates
    .map((c) => ({ ...c, distance: damerauDistance(word, c.term) }))
    .filter((c) => c.distance > 0 && c.distance <= budget);
  if (scored.length === 0) return [];
  const best = Math.min(...scored.map((c) => c.distance));
  return scored
    .filter((c) => c.distance === best)
    .sort((x, y) => y.docCount - x.docCount || x.term.localeCompare(y.term))
    .slice(0, MAX_CORRECTIONS)
    .map((c) => ({ from: word, to: c.term, distance: c.distance }));
}
