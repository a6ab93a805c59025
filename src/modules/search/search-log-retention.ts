import type { Database } from '../../db/client.js';
import { LONGEST_ANALYTICS_DAYS } from './analytics.service.js';

/**
 * Deletes what the search log holds past the longest analytics period: search rows, who searched each query
 * (the query's distinct-client count drops with them, so it stays exact) and the running totals of queries
 * nobody searched since. Returns what was deleted: searches (a row of search_queries stands for search_count of
 * them), clients' rows and totals' rows.
 */
export async function purgeSearchLog(db: Database): Promise<Record<string, number>> {
  const cutoff = new Date(Date.now() - LONGEST_ANALYTICS_DAYS * 86_400_000).toISOString();
  const [[queries], [clients], stats] = await db.$transaction([
    db.$queryRaw<Array<{ searches: number }>>`WITH gone AS (
        DELETE FROM search_queries WHERE created_at < ${cutoff}::timestamptz RETURNING search_count)
      SELECT coalesce(sum(search_count), 0)::int AS searches FROM gone`,
    db.$queryRaw<Array<{ deleted: number }>>`WITH gone AS (
        DELETE FROM search_query_clients WHERE last_searched_at < ${cutoff}::timestamptz RETURNING project_id, query),
      lost AS (SELECT project_id, query, count(*)::int AS n FROM gone GROUP BY project_id, query),
      recounted AS (
        UPDATE search_query_stats s SET client_count = greatest(s.client_count - lost.n, 0)
        FROM lost WHERE s.project_id = lost.project_id AND s.query = lost.query RETURNING 1)
      SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT count(*) FROM recounted) AS recounted`,
    db.$executeRaw`DELETE FROM search_query_stats WHERE last_searched_at < ${cutoff}::timestamptz`,
  ]);
  return { queries: queries.searches, clients: clients.deleted, stats };
}
