/** `text` as a literal inside a LIKE pattern (Prisma's `contains` does not escape % and _). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A Prisma filter: case-insensitive equality with `text` (an ILIKE of it escaped, so % and _ are literal). */
export const equalsIgnoringCase = (text: string) => ({ equals: escapeLike(text), mode: 'insensitive' as const });
