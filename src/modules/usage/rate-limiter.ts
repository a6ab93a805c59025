import type { Database } from '../../db/client.js';
import type { Project } from '../../generated/prisma/client.js';
import { leaseBlock, windowsAt, type Windows } from './windows.js';

type Kind = 'minute' | 'month';

/** What one process holds of a project's current windows. */
interface Lease {
  minuteStart: number;
  period: string;
  /** Requests this process may still accept without asking the database. */
  left: Record<Kind, number>;
  /** The window's shared `used` as of this process's latest lease (its own leases included). */
  used: Record<Kind, number>;
  /** When a lease of the window last came back empty: the limit is reached (asked again after a second, for raised limits). */
  exhaustedAt: Record<Kind, number>;
}

// A window found full is not asked again for this long, so refused traffic costs at most one query a
// second per project and process, and a raised limit is seen within a second.
const RECHECK_FULL_MS = 1000;

export interface RateDecision {
  /** null: accepted; otherwise which limit refused the request. */
  refusedBy: null | 'rate_limited' | 'quota_exceeded';
  limit: number;
  remaining: number;
  windows: Windows;
  /** Month thresholds this request's lease crossed: the caller records usage.warning for them. */
  crossed: Array<{ used: number; before: number }>;
}

/**
 * Per-project request limits shared by every process on one database, without a database round trip
 * on most requests. Each process leases blocks of allowance from the shared `rate_windows` counters in
 * one atomic statement that never lets `used` pass the limit, then spends them locally. So the number of
 * requests accepted in a window never exceeds the limit, whatever the number of processes; what a
 * process leased and did not spend before the window closed is lost (blocks shrink as the window fills,
 * see `leaseBlock`, to keep that small).
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<void>>();

  constructor(private readonly db: Database) {}

  /** Takes one request's allowance for the project, leasing more from the database when this process has none left. */
  async take(project: Project, now = new Date()): Promise<RateDecision> {
    const windows = windowsAt(now);
    const lease = this.currentLease(project.id, windows);
    const crossed: RateDecision['crossed'] = [];
    let refusedBy: RateDecision['refusedBy'] = null;
    for (;;) {
      const full = (kind: Kind) => lease.left[kind] <= 0 && now.getTime() - lease.exhaustedAt[kind] < RECHECK_FULL_MS;
      if (full('month')) refusedBy = 'quota_exceeded';
      else if (full('minute')) refusedBy = 'rate_limited';
      else if (lease.left.month > 0 && lease.left.minute > 0) {
        lease.left.month -= 1;
        lease.left.minute -= 1;
      } else {
        // One refill per project at a time in this process; requests arriving meanwhile wait for it and look again.
        let refill = this.refills.get(project.id);
        if (!refill) {
          const needed = (['month', 'minute'] as const).filter((kind) => lease.left[kind] <= 0);
          refill = this.refill(project, windows, lease, needed, crossed, now).finally(() =>
            this.refills.delete(project.id),
          );
          this.refills.set(project.id, refill);
        }
        await refill;
        continue;
      }
      break;
    }
    const limit = project.rateLimitPerMinute;
    return {
      refusedBy,
      limit,
      remaining: Math.max(0, limit - lease.used.minute) + lease.left.minute,
      windows,
      crossed,
    };
  }

  private currentLease(projectId: string, windows: Windows): Lease {
    let lease = this.leases.get(projectId);
    if (!lease || lease.period !== windows.period) {
      lease = {
        minuteStart: windows.minuteStart.getTime(),
        period: windows.period,
        left: { minute: 0, month: 0 },
        used: { minute: 0, month: 0 },
        exhaustedAt: { minute: 0, month: 0 },
      };
      this.leases.set(projectId, lease);
    } else if (lease.minuteStart !== windows.minuteStart.getTime()) {
      lease.minuteStart = windows.minuteStart.getTime();
      lease.left.minute = 0;
      lease.used.minute = 0;
      lease.exhaustedAt.minute = 0;
    }
    return lease;
  }

  private async refill(
    project: Project,
    windows: Windows,
    lease: Lease,
    kinds: readonly Kind[],
    crossed: RateDecision['crossed'],
    now: Date,
  ): Promise<void> {
    const limits: Record<Kind, number> = { minute: project.rateLimitPerMinute, month: project.monthlyQuota };
    const starts: Record<Kind, Date> = { minute: windows.minuteStart, month: windows.monthStart };
    const request = kinds.map((kind) => ({
      kind,
      start: starts[kind],
      block: leaseBlock(limits[kind], lease.used[kind]),
      limit: limits[kind],
    }));
    // Atomic per row: the grant is computed from the row's `used` under its lock, never past the limit.
    const rows = await this.db.$queryRaw<Array<{ kind: Kind; used: number; last_grant: number }>>`
      WITH req AS (
        SELECT * FROM unnest(${request.map((r) => r.kind)}::text[], ${request.map((r) => r.start)}::timestamptz[],
                             ${request.map((r) => r.block)}::int[], ${request.map((r) => r.limit)}::int[]) AS t(kind, start, block, lim)
      )
      INSERT INTO rate_windows AS w (project_id, kind, window_start, used, last_grant)
      SELECT ${project.id}, kind, start, LEAST(block, lim), LEAST(block, lim) FROM req
      ON CONFLICT (project_id, kind, window_start) DO UPDATE
      SET used = w.used + LEAST((SELECT block FROM req WHERE req.kind = EXCLUDED.kind), GREATEST((SELECT lim FROM req WHERE req.kind = EXCLUDED.kind) - w.used, 0)),
          last_grant = LEAST((SELECT block FROM req WHERE req.kind = EXCLUDED.kind), GREATEST((SELECT lim FROM req WHERE req.kind = EXCLUDED.kind) - w.used, 0))
      RETURNING kind, used, last_grant`;
    for (const row of rows) {
      lease.left[row.kind] += row.last_grant;
      lease.used[row.kind] = row.used;
      lease.exhaustedAt[row.kind] = row.last_grant === 0 ? now.getTime() : 0;
      if (row.kind === 'month' && row.last_grant > 0)
        crossed.push({ before: row.used - row.last_grant, used: row.used });
    }
  }
}
