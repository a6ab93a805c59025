/**
 * The search log: searches are buffered in memory and written in batches (every 250 ms, or at 500
 * rows) so a search never waits for its log row; flushSearchLog() writes what is left (called on a clean
 * shutdown before the database closes).
 */
import type { Database } from '../../db/client.js';
import type { TableVersions } from '../../shared/table-version-cache.js';

export interface SearchLogEntry {
  projectId: string;
  query: string;
  resultCount: number;
  tookMs: number;
  /** Keyed hash of who searched (see searchClientHash); absent for searches no client made (jobs). */
  clientHash?: string;
}

const FLUSH_EVERY_MS = 250;
const FLUSH_AT = 500;
const pending = new Map<Database, Array<SearchLogEntry & { at: Date }>>();
// The table versions of the process's caches per database, so a flush marks what it wrote changed at once.
const versionsOf = new Map<Database, TableVersions>();
let timer: NodeJS.Timeout | undefined;
let flushing: Promise<void> = Promise.resolve();

async function write(db: Database, rows: Array<SearchLogEntry & { at: Date }>): Promise<void> {
  const projects = rows.map((r) => r.projectId);
  const queries = rows.map((r) => r.query);
  const counts = rows.map((r) => r.resultCount);
  const took = rows.map((r) => r.tookMs);
  const clients = rows.map((r) => r.clientHash ?? null);
  const at = rows.map((r) => r.at.toISOString());
  await db.$transaction([
    db.$executeRaw`INSERT INTO search_queries (project_id, query, result_count, took_ms, client_hash, created_at)
      SELECT * FROM unnest(${projects}::text[], ${queries}::text[], ${counts}::int[], ${took}::float8[], ${clients}::text[], ${at}::timestamptz[])`,
    // Who searched each query (a client once per query), then the running totals for suggestions with the
    // number of clients new to the query; both in key order so concurrent flushes cannot deadlock.
    db.$executeRaw`WITH batch AS (
        SELECT p, q, h, max(t) AS t FROM unnest(${projects}::text[], ${queries}::text[], ${clients}::text[], ${at}::timestamptz[]) AS x(p, q, h, t)
        WHERE h IS NOT NULL GROUP BY p, q, h),
      seen AS (
        INSERT INTO search_query_clients (project_id, query, client_hash, last_searched_at)
        SELECT p, q, h, t FROM batch ORDER BY p, q, h
        ON CONFLICT (project_id, query, client_hash) DO UPDATE
          SET last_searched_at = greatest(search_query_clients.last_searched_at, EXCLUDED.last_searched_at)
        RETURNING project_id, query, xmax = 0 AS is_new)
      INSERT INTO search_query_stats (project_id, query, search_count, last_result_count, last_searched_at, client_count)
      SELECT p, q, count(*)::int, (array_agg(c ORDER BY t DESC))[1], max(t),
        (SELECT count(*)::int FROM seen WHERE seen.project_id = x.p AND seen.query = x.q AND seen.is_new)
      FROM unnest(${projects}::text[], ${queries}::text[], ${counts}::int[], ${at}::timestamptz[]) AS x(p, q, c, t)
      GROUP BY p, q ORDER BY p, q
      ON CONFLICT (project_id, query) DO UPDATE SET search_count = search_query_stats.search_count + EXCLUDED.search_count,
        last_result_count = EXCLUDED.last_result_count, last_searched_at = EXCLUDED.last_searched_at,
        client_count = search_query_stats.client_count + EXCLUDED.client_count`,
  ]);
}

/** Writes every buffered search now; resolves when they are stored (errors are logged to stderr, not thrown). */
export function flushSearchLog(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const batches = [...pending.entries()];
  pending.clear();
  flushing = flushing.then(async () => {
    for (const [db, rows] of batches) {
      try {
        await write(db, rows);
        // Suggestions read these: this process's cached ones are stale at once, before the notification arrives.
        for (const table of ['search_query_stats', 'search_query_clients']) versionsOf.get(db)?.tableWritten(table);
      } catch (error) {
        console.error(
          JSON.stringify({ level: 'error', msg: 'search log write failed', rows: rows.length, error: String(error) }),
        );
      }
    }
  });
  return flushing;
}

/**
 * Buffers one search for the log; the write happens after the answer, and then marks the log's tables
 * changed in `versions` (the process's cache versions) at once.
 */
export function recordSearch(db: Database, entry: SearchLogEntry, versions?: TableVersions): void {
  if (versions) versionsOf.set(db, versions);
  const rows = pending.get(db) ?? [];
  rows.push({ ...entry, at: new Date() });
  pending.set(db, rows);
  if (rows.length >= FLUSH_AT) void flushSearchLog();
  else if (!timer) {
    timer = setTimeout(() => void flushSearchLog(), FLUSH_EVERY_MS);
    timer.unref();
  }
}
