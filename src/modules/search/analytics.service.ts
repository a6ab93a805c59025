import type { operations } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';

type Period = NonNullable<NonNullable<operations['getTopSearchQueries']['parameters']['query']>['period']>;

const PERIOD_DAYS: Record<Period, number> = { '1d': 1, '7d': 7, '14d': 14, '30d': 30 };
/** The longest period analytics answer for: the search log keeps nothing older (see purgeSearchLog). */
export const LONGEST_ANALYTICS_DAYS = Math.max(...Object.values(PERIOD_DAYS));
const since = (period: Period | undefined) =>
  new Date(Date.now() - PERIOD_DAYS[period ?? '7d'] * 86_400_000).toISOString();

/**
 * The period's queries by distinct clients, then frequency (ties by query), with their average result count per
 * search: one client repeating a query cannot lift it above queries many clients searched. A row of the log stands
 * for search_count searches (a client's repeats within one write), so searches are summed, not rows counted.
 */
export async function topQueries(ctx: Ctx, period: Period | undefined, limit = 20) {
  return ctx.db.$queryRaw<Array<{ query: string; count: number; clients: number; avg_results: number }>>`
    SELECT query, sum(search_count)::int AS count, count(DISTINCT client_hash)::int AS clients,
      round(sum(result_count::numeric * search_count) / sum(search_count), 2)::float8 AS avg_results
    FROM search_queries WHERE project_id = ${ctx.project.id} AND created_at >= ${since(period)}::timestamptz
    GROUP BY query ORDER BY count(DISTINCT client_hash) DESC, sum(search_count) DESC, query LIMIT ${limit}`;
}

/** The period's queries that found nothing, by frequency (searches, summed over the log's rows). */
export async function zeroResultQueries(ctx: Ctx, period: Period | undefined, limit = 20) {
  return ctx.db.$queryRaw<Array<{ query: string; count: number }>>`
    SELECT query, sum(search_count)::int AS count
    FROM search_queries WHERE project_id = ${ctx.project.id} AND created_at >= ${since(period)}::timestamptz AND result_count = 0
    GROUP BY query ORDER BY sum(search_count) DESC, query LIMIT ${limit}`;
}
