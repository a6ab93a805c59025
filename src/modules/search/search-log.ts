/**
 * The search log: searches are buffered in memory and written in batches (every 250 ms, or at 500
 * rows) so a search never waits for its log row; flushSearchLog() writes what is left (called on a clean
 * shutdown before the database closes).
 */
import type { Database } from '../../db/client.js';

export interface SearchLogEntry {
  projectId: string;
  query: string;
  resultCount: number;
  tookMs: number;
}

const FLUSH_EVERY_MS = 250;
const FLUSH_AT = 500;
const pending = new Map<Database, Array<SearchLogEntry & { at: Date }>>();
let timer: NodeJS.Timeout | undefined;
let flushing: Promise<void> = Promise.resolve();

async function write(db: Database, rows: Array<SearchLogEntry & { at: Date }>): Promise<void> {
  const projects = rows.map((r) => r.projectId);
  const queries = rows.map((r) => r.query);
  const counts = rows.map((r) => r.resultCount);
  const took = rows.map((r) => r.tookMs);
  const at = rows.map((r) => r.at.toISOString());
  await db.$transaction([
    db.$executeRaw`INSERT INTO search_queries (project_id, query, result_count, took_ms, created_at)
      SELECT * FROM unnest(${projects}::text[], ${queries}::text[], ${counts}::int[], ${took}::float8[], ${at}::timestamptz[])`,
    // Running totals for suggestions, in key order so concurrent flushes cannot deadlock.
    db.$executeRaw`INSERT INTO search_query_stats (project_id, query, search_count, last_result_count, last_searched_at)
      SELECT p, q, count(*)::int, (array_agg(c ORDER BY t DESC))[1], max(t)
      FROM unnest(${projects}::text[], ${queries}::text[], ${counts}::int[], ${at}::timestamptz[]) AS x(p, q, c, t)
      GROUP BY p, q ORDER BY p, q
      ON CONFLICT (project_id, query) DO UPDATE SET search_count = search_query_stats.search_count + EXCLUDED.search_count,
        last_result_count = EXCLUDED.last_result_count, last_searched_at = EXCLUDED.last_searched_at`,
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
      } catch (error) {
        console.error(
          JSON.stringify({ level: 'error', msg: 'search log write failed', rows: rows.length, error: String(error) }),
        );
      }
    }
  });
  return flushing;
}

/** Buffers one search for the log; the write happens after the answer. */
export function recordSearch(db: Database, entry: SearchLogEntry): void {
  const rows = pending.get(db) ?? [];
  rows.push({ ...entry, at: new Date() });
  pending.set(db, rows);
  if (rows.length >= FLUSH_AT) void flushSearchLog();
  else if (!timer) {
    timer = setTimeout(() => void flushSearchLog(), FLUSH_EVERY_MS);
    timer.unref();
  }
}
