/**
 * The search log: searches are buffered in memory and written in batches (every 250 ms, or at 500 rows) so a
 * search never waits for its log row; flushSearchLog() writes what is left (called on a clean shutdown before the
 * database closes). In the buffer, one client's repeats of a query with the same result count are one row with a
 * count (search_queries.search_count), so a batch writes a row per client and query, not per search. Each batch is
 * one statement on a connection of the pool (its rows, who searched and the running totals, atomically), one write
 * at a time; while a write is under way the buffer holds at most MAX_BUFFERED rows, and searches past that are
 * dropped and counted (searchLogCounts), so a slow database cannot make the buffer grow without limit.
 */
import { poolOf, type Database } from '../../db/client.js';
import { preparedStatement } from '../../db/prepared.js';
import type { TableVersions } from '../../shared/table-versions.js';

export interface SearchLogEntry {
  projectId: string;
  query: string;
  resultCount: number;
  tookMs: number;
  /** Keyed hash of who searched (see searchClientHash); absent for searches no client made (jobs). */
  clientHash?: string;
}

const FLUSH_EVERY_MS = 250;
/** Rows that start a write at once (otherwise the timer does). */
export const FLUSH_AT = 500;
/** Rows (distinct client, query and result count) the buffer holds at most, over every database. */
export const MAX_BUFFERED = 10_000;

/** One row of a batch: a client's searches of a query with one result count since the last write. */
interface BufferedRow {
  projectId: string;
  query: string;
  clientHash: string | null;
  resultCount: number;
  searches: number;
  totalTookMs: number;
  /** When the last of them was made (ms since the epoch), and its place among every search buffered. */
  lastAt: number;
  lastSeq: number;
}

const pending = new Map<Database, Map<string, BufferedRow>>();
let buffered = 0;
let sequence = 0;
const counts = { dropped: 0, failed: 0 };
// Drops already reported on stderr (one line per write that follows any).
let reportedDrops = 0;
// The table versions of the process's caches per database, so a write marks what it wrote changed at once.
const versionsOf = new Map<Database, TableVersions>();
let timer: NodeJS.Timeout | undefined;
let writing: Promise<void> | undefined;

// The batch's rows (in the order of their last searches, so the last result count is the last search's), who
// searched each query (a client once per query), then the running totals for suggestions with the number of
// clients new to the query; in one statement, so all or nothing is stored; clients and totals
// in key order so concurrent writes of several processes cannot deadlock.
const WRITE_BATCH = `WITH batch AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::float8[], $7::timestamptz[])
      WITH ORDINALITY AS x(p, q, h, c, n, took, t, ord)),
  logged AS (
    INSERT INTO search_queries (project_id, query, client_hash, result_count, search_count, took_ms, created_at)
    SELECT p, q, h, c, n, took, t FROM batch),
  seen AS (
    INSERT INTO search_query_clients (project_id, query, client_hash, last_searched_at)
    SELECT p, q, h, max(t) FROM batch WHERE h IS NOT NULL GROUP BY p, q, h ORDER BY p, q, h
    ON CONFLICT (project_id, query, client_hash) DO UPDATE
      SET last_searched_at = greatest(search_query_clients.last_searched_at, EXCLUDED.last_searched_at)
    RETURNING project_id, query, xmax = 0 AS is_new)
  INSERT INTO search_query_stats (project_id, query, search_count, last_result_count, last_searched_at, client_count)
  SELECT p, q, sum(n)::int, (array_agg(c ORDER BY ord DESC))[1], max(t),
    (SELECT count(*)::int FROM seen WHERE seen.project_id = b.p AND seen.query = b.q AND seen.is_new)
  FROM batch b GROUP BY p, q ORDER BY p, q
  ON CONFLICT (project_id, query) DO UPDATE SET search_count = search_query_stats.search_count + EXCLUDED.search_count,
    last_result_count = EXCLUDED.last_result_count, last_searched_at = EXCLUDED.last_searched_at,
    client_count = search_query_stats.client_count + EXCLUDED.client_count`;
const writeBatch = preparedStatement<never>('search_log_write', WRITE_BATCH);

async function write(db: Database, buffer: Iterable<BufferedRow>): Promise<void> {
  const rows = [...buffer].sort((a, b) => a.lastSeq - b.lastSeq);
  const values = [
    rows.map((r) => r.projectId),
    rows.map((r) => r.query),
    rows.map((r) => r.clientHash),
    rows.map((r) => r.resultCount),
    rows.map((r) => r.searches),
    rows.map((r) => r.totalTookMs / r.searches),
    rows.map((r) => new Date(r.lastAt).toISOString()),
  ];
  const pool = poolOf(db);
  if (pool) await writeBatch(pool, values);
  else await db.$executeRawUnsafe(WRITE_BATCH, ...values);
}

/** Writes what is buffered now, one database after the other; a failed write is logged to stderr and counted. */
function writePending(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const batches = [...pending.entries()];
  pending.clear();
  buffered = 0;
  if (counts.dropped > reportedDrops) {
    console.error(
      JSON.stringify({
        level: 'warn',
        msg: 'search log buffer full: searches dropped',
        searches: counts.dropped - reportedDrops,
      }),
    );
    reportedDrops = counts.dropped;
  }
  writing = (async () => {
    for (const [db, rows] of batches) {
      const list = [...rows.values()];
      try {
        await write(db, list);
        // Suggestions read these: this process's cached ones are stale at once, before the notification arrives.
        for (const projectId of new Set(list.map((row) => row.projectId)))
          for (const table of ['search_query_stats', 'search_query_clients'])
            versionsOf.get(db)?.tableWritten(table, projectId);
      } catch (error) {
        const searches = list.reduce((sum, row) => sum + row.searches, 0);
        counts.failed += searches;
        console.error(
          JSON.stringify({
            level: 'error',
            msg: 'search log write failed',
            rows: list.length,
            searches,
            error: String(error),
          }),
        );
      }
    }
  })().finally(() => {
    writing = undefined;
    // What was buffered meanwhile: at once when a batch is full, otherwise on the timer.
    if (buffered >= FLUSH_AT) void writePending();
    else if (buffered > 0) schedule();
  });
  return writing;
}

function schedule(): void {
  if (timer || writing) return;
  timer = setTimeout(() => {
    timer = undefined;
    if (!writing && buffered > 0) void writePending();
  }, FLUSH_EVERY_MS);
  timer.unref();
}

/** Writes every buffered search now, after any write under way; resolves when they are stored (errors are logged to stderr, not thrown). */
export async function flushSearchLog(): Promise<void> {
  while (writing) await writing;
  if (buffered > 0) await writePending();
}

/**
 * Buffers one search for the log (a repeat of a buffered client, query and result count adds to its row); the
 * write happens after the answer, and then marks the log's tables changed in `versions` (the process's cache
 * versions) at once. With MAX_BUFFERED rows buffered, a search needing a new row is dropped and counted.
 */
export function recordSearch(db: Database, entry: SearchLogEntry, versions?: TableVersions): void {
  if (versions) versionsOf.set(db, versions);
  let rows = pending.get(db);
  if (!rows) pending.set(db, (rows = new Map<string, BufferedRow>()));
  const clientHash = entry.clientHash ?? null;
  // The query last: every field before it has a fixed form, so the key is unambiguous.
  const key = `${entry.projectId}|${clientHash ?? ''}|${entry.resultCount}|${entry.query}`;
  const row = rows.get(key);
  if (row) {
    row.searches += 1;
    row.totalTookMs += entry.tookMs;
    row.lastAt = Date.now();
    row.lastSeq = ++sequence;
  } else if (buffered >= MAX_BUFFERED) {
    counts.dropped += 1;
    return;
  } else {
    rows.set(key, {
      projectId: entry.projectId,
      query: entry.query,
      clientHash,
      resultCount: entry.resultCount,
      searches: 1,
      totalTookMs: entry.tookMs,
      lastAt: Date.now(),
      lastSeq: ++sequence,
    });
    buffered += 1;
  }
  if (buffered >= FLUSH_AT && !writing) void writePending();
  else schedule();
}

/** Rows buffered now, and the searches dropped (buffer full) or lost (a failed write) since the process started. */
export function searchLogCounts(): { buffered: number; dropped: number; failed: number } {
  return { buffered, ...counts };
}
