/**
 * Lowercase letter by letter, as PostgreSQL's lower() folds (the ILIKE of Prisma's insensitive filters, generated
 * lowercase columns): JavaScript's toLowerCase applies the special casings, İ to "i̇" (two code points) and a
 * word-final Σ to ς, where the database folds İ to i and Σ to σ, so a text folded here and one folded there would
 * differ for the same word.
 */
export const foldCase = (text: string): string =>
  Array.from(text, (char) => (char === '\u0130' ? 'i' : char.toLowerCase())).join('');
