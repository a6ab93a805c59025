import { Prisma } from '../../generated/prisma/client.js';

/** The words of a search, lowercased and without repeats; each must be found in a customer. */
export function searchWords(search: string): string[] {
  return [...new Set(search.toLowerCase().split(/\s+/).filter(Boolean))];
}

/** `text` as a literal inside a LIKE pattern (Prisma's `contains` does not escape % and _). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Prisma filter: every word is a case-insensitive substring of the first name, last name or email. */
export function searchWhere(search: string): Prisma.CustomerWhereInput[] {
  return searchWords(search).map((word) => {
    const contains = { contains: escapeLike(word), mode: 'insensitive' as const };
    return { OR: [{ firstName: contains }, { lastName: contains }, { email: contains }] };
  });
}

/** The same filter as SQL, for the relevance query. */
export function searchSql(search: string): Prisma.Sql[] {
  return searchWords(search).map((word) => {
    const pattern = `%${escapeLike(word)}%`;
    return Prisma.sql`(first_name ILIKE ${pattern} OR last_name ILIKE ${pattern} OR email ILIKE ${pattern})`;
  });
}

/** Relevance rank, lower is better: exact email, exact name, prefix of a field, substring anywhere. */
export function relevanceRankSql(search: string): Prisma.Sql {
  const whole = search.trim().toLowerCase();
  const prefix = `${escapeLike(searchWords(search)[0] ?? '')}%`;
  return Prisma.sql`CASE
    WHEN email_normalized = ${whole} THEN 0
    WHEN lower(first_name || ' ' || last_name) = ${whole} OR lower(first_name) = ${whole} OR lower(last_name) = ${whole} THEN 1
    WHEN lower(first_name) LIKE ${prefix} OR lower(last_name) LIKE ${prefix} OR email_normalized LIKE ${prefix} THEN 2
    ELSE 3 END`;
}
