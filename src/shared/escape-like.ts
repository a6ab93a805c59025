/** `text` as a literal inside a LIKE pattern (Prisma's `contains` does not escape % and _). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
