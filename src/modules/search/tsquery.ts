/** Builds the PostgreSQL tsquery of a parsed query as SQL (every text a bound parameter). */
import { Prisma } from '../../generated/prisma/client.js';
import type { Clause, ParsedQuery, Term } from './query-parser.js';

const PREFIX_SAFE = /^[\p{L}\p{N}]+$/u;

/** One term: its english stems or its exact form; a prefix word also any word starting with it. */
export function termSql(term: Term): Prisma.Sql {
  const exact = Prisma.sql`(phraseto_tsquery('english', ${term.text}) || phraseto_tsquery('search_exact', ${term.text}))`;
  if (term.kind === 'word' && term.prefix && PREFIX_SAFE.test(term.text)) {
    return Prisma.sql`(${exact} || to_tsquery('simple', ${`${term.text}:*`}))`;
  }
  return exact;
}

/** One clause: any of its terms. */
export function clauseSql(clause: Clause): Prisma.Sql {
  return Prisma.sql`(${Prisma.join(clause.map(termSql), ' || ')})`;
}

/** Every clause must match, no excluded term may. */
export function querySql(parsed: ParsedQuery): Prisma.Sql {
  const must = Prisma.join(parsed.must.map(clauseSql), ' && ');
  if (parsed.exclude.length === 0) return Prisma.sql`(${must})`;
  const excluded = Prisma.join(
    parsed.exclude.map((t) => Prisma.sql`!! ${termSql({ ...t, ...(t.kind === 'word' ? { prefix: false } : {}) })}`),
    ' && ',
  );
  return Prisma.sql`(${must} && ${excluded})`;
}
