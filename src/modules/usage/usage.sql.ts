import type { Database } from '../../db/client.js';

/**
 * The usage area's hand-written statements (tagged raw SQL, values bound): the atomic grants from the shared
 * `rate_windows` counters, each one statement computed under the row's lock, so no count passes its limit.
 */

/** One request from the budget `key` of the project's minute: a row when taken, none when `limit` is used up. */
export function takeOne(
  db: Database,
  projectId: string,
  key: string,
  limit: number,
  minuteStart: Date,
): Promise<Array<{ used: number }>> {
  return db.$queryRaw<Array<{ used: number }>>`
    INSERT INTO rate_windows AS w (project_id, kind, window_start, used, last_grant)
    VALUES (${projectId}, ${key}, ${minuteStart}, 1, 1)
    ON CONFLICT (project_id, kind, window_start) DO UPDATE SET used = w.used + 1, last_grant = 1
    WHERE w.used < ${limit}
    RETURNING used`;
}

/** A lease's refill of one window of a project's budget. */
export interface WindowGrant {
  kind: string;
  start: Date;
  /** How much to take. */
  block: number;
  limit: number;
  /** What this process gives back first. */
  unspent: number;
}

/** Per window, gives `unspent` back and grants up to `block` more, never past `limit`; answers each window's use and grant. */
export function grantWindows(
  db: Database,
  projectId: string,
  request: WindowGrant[],
): Promise<Array<{ kind: string; used: number; last_grant: number }>> {
  return db.$queryRaw<Array<{ kind: string; used: number; last_grant: number }>>`
    WITH req AS (
      SELECT * FROM unnest(${request.map((r) => r.kind)}::text[], ${request.map((r) => r.start)}::timestamptz[],
                           ${request.map((r) => r.block)}::int[], ${request.map((r) => r.limit)}::int[],
                           ${request.map((r) => r.unspent)}::int[]) AS t(kind, start, block, lim, ret)
    )
    INSERT INTO rate_windows AS w (project_id, kind, window_start, used, last_grant)
    SELECT ${projectId}, kind, start, LEAST(block, lim), LEAST(block, lim) FROM req
    ON CONFLICT (project_id, kind, window_start) DO UPDATE
    SET used = GREATEST(w.used - (SELECT ret FROM req WHERE req.kind = EXCLUDED.kind), 0)
               + LEAST((SELECT block FROM req WHERE req.kind = EXCLUDED.kind), GREATEST((SELECT lim FROM req WHERE req.kind = EXCLUDED.kind) - GREATEST(w.used - (SELECT ret FROM req WHERE req.kind = EXCLUDED.kind), 0), 0)),
        last_grant = LEAST((SELECT block FROM req WHERE req.kind = EXCLUDED.kind), GREATEST((SELECT lim FROM req WHERE req.kind = EXCLUDED.kind) - GREATEST(w.used - (SELECT ret FROM req WHERE req.kind = EXCLUDED.kind), 0), 0))
    RETURNING kind, used, last_grant`;
}

/** Gives `unspent` back to the client budget `key` of the project's minute and grants up to `block` more, never past `limit`. */
export async function grantClientWindow(
  db: Database,
  projectId: string,
  key: string,
  minuteStart: Date,
  grant: { block: number; limit: number; unspent: number },
): Promise<{ used: number; last_grant: number }> {
  const { block, limit, unspent } = grant;
  const [row] = await db.$queryRaw<Array<{ used: number; last_grant: number }>>`
    INSERT INTO rate_windows AS w (project_id, kind, window_start, used, last_grant)
    VALUES (${projectId}, ${key}, ${minuteStart}, LEAST(${block}::int, ${limit}::int), LEAST(${block}::int, ${limit}::int))
    ON CONFLICT (project_id, kind, window_start) DO UPDATE
    SET used = GREATEST(w.used - ${unspent}::int, 0)
               + LEAST(${block}::int, GREATEST(${limit}::int - GREATEST(w.used - ${unspent}::int, 0), 0)),
        last_grant = LEAST(${block}::int, GREATEST(${limit}::int - GREATEST(w.used - ${unspent}::int, 0), 0))
    RETURNING used, last_grant`;
  return row;
}
