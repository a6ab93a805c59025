import type { Prisma } from '../../generated/prisma/client.js';
import { equalsIgnoringCase, escapeLike } from '../../shared/escape-like.js';
import { foldCase } from '../../shared/fold-case.js';

/** The words of a search, lowercased as the database folds case (foldCase) and without repeats; each must be found in a customer. */
export function searchWords(search: string): string[] {
  return [...new Set(foldCase(search).split(/\s+/).filter(Boolean))];
}

/** Filter: every word is a case-insensitive substring of the first name, last name or email. */
export function searchWhere(search: string): Prisma.CustomerWhereInput[] {
  return searchWords(search).map((word) => {
    const contains = { contains: escapeLike(word), mode: 'insensitive' as const };
    return { OR: [{ firstName: contains }, { lastName: contains }, { email: contains }] };
  });
}

/**
 * The relevance tiers of a search, best first: exact email; exact first name, last name or full name
 * ("first last", split at any space); a field starting with the first word; anything else that matched.
 * A customer belongs to the first tier it satisfies.
 */
export function relevanceTiers(search: string): Prisma.CustomerWhereInput[] {
  const whole = foldCase(search.trim());
  const fullNames = [...whole.matchAll(/ /g)].map(({ index }) => ({
    firstName: equalsIgnoringCase(whole.slice(0, index)),
    lastName: equalsIgnoringCase(whole.slice(index + 1)),
  }));
  const prefix = { startsWith: escapeLike(searchWords(search)[0] ?? ''), mode: 'insensitive' as const };
  return [
    { emailNormalized: whole },
    { OR: [{ firstName: equalsIgnoringCase(whole) }, { lastName: equalsIgnoringCase(whole) }, ...fullNames] },
    { OR: [{ firstName: prefix }, { lastName: prefix }, { emailNormalized: prefix }] },
    {},
  ];
}
