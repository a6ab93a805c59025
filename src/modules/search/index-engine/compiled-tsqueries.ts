/**
 * Compiled tsqueries: the statements' tsqueries as PostgreSQL builds them (`tsquerysend`), decoded once and
 * memoised per project (text search configurations do not change while the process runs), so a repeated query costs
 * no round trip.
 */
import { LRUCache } from 'lru-cache';
import { Prisma } from '../../../generated/prisma/client.js';
import type { Ctx } from '../../../shared/context.js';
import { decodeTsQuery, type TsQuery } from '../engine/pg-tsquery.js';

/**
 * Compiled tsqueries by their SQL (text search configurations do not change while the process runs), at most
 * `limit`, least recently used out. A statement's text is kept once per shape (its values apart), so an entry
 * costs its values and its tsquery, not the text (a long-tail of new queries held megabytes of texts).
 */
export class CompiledTsQueries {
  private readonly queries: LRUCache<string, TsQuery>;
  private readonly shapes = new Map<string, number>();
  /** Never reused: a key made before the shapes started afresh cannot name another statement's text. */
  private nextShape = 0;

  constructor(private readonly limit: number) {
    this.queries = new LRUCache({ max: limit });
  }

  /**
   * The tsqueries of `sqls` as PostgreSQL builds them, in one round trip for those not compiled yet; what was
   * found before the round trip is answered even if other searches' compilations evicted it meanwhile.
   */
  async compile(ctx: Ctx, sqls: Prisma.Sql[]): Promise<TsQuery[]> {
    const keys = sqls.map((sql) => `${this.shapeOf(sql.sql)}|${JSON.stringify(sql.values)}`);
    const found = new Map<string, TsQuery>();
    for (const key of keys) {
      const query = this.queries.get(key);
      if (query) found.set(key, query);
    }
    const missing = [...new Set(keys.filter((key) => !found.has(key)))];
    if (missing.length > 0) {
      const bySql = new Map(keys.map((key, i) => [key, sqls[i]]));
      const [row] = await ctx.db.$queryRaw<Array<{ queries: Uint8Array[] }>>`
        SELECT ARRAY[${Prisma.join(missing.map((key) => Prisma.sql`tsquerysend(${bySql.get(key)!})`))}]::bytea[] AS queries`;
      missing.forEach((key, i) => {
        const query = decodeTsQuery(row.queries[i]);
        this.queries.set(key, query);
        found.set(key, query);
      });
    }
    return keys.map((key) => found.get(key)!);
  }

  /** A number per statement text; past `limit` texts (queries of ever new forms) the numbering starts afresh, with the memo. */
  private shapeOf(text: string): number {
    let shape = this.shapes.get(text);
    if (shape === undefined) {
      if (this.shapes.size >= this.limit) {
        this.shapes.clear();
        this.queries.clear();
      }
      this.shapes.set(text, (shape = this.nextShape++));
    }
    return shape;
  }
}

// A memo per project (the most recently searched MEMO_PROJECTS, 1,000 tsqueries each), so one project's long tail of
// new queries never pushes another project's compiled tsqueries out.
const MEMO_PROJECTS = 128;
const compiledByProject = new LRUCache<string, CompiledTsQueries>({ max: MEMO_PROJECTS });
/** The tsqueries of `sqls` through the project's memo (CompiledTsQueries.compile). */
export const compile = (ctx: Ctx, sqls: Prisma.Sql[]) => {
  const projectId = ctx.project.id;
  let memo = compiledByProject.get(projectId);
  if (!memo) compiledByProject.set(projectId, (memo = new CompiledTsQueries(1_000)));
  return memo.compile(ctx, sqls);
};

/** Forgets the project's compiled tsqueries (SEARCH_INDEX_CACHES=off, index-caches.ts): its next search compiles anew. */
export function forgetCompiled(projectId: string): void {
  compiledByProject.delete(projectId);
}
