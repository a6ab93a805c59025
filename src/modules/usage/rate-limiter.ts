import type { Database } from '../../db/client.js';
import type { Project } from '../../generated/prisma/client.js';
import { StorefrontClients } from './storefront-clients.js';
import { grantWindows } from './usage.sql.js';
import { leaseBlock, windowsAt, type Windows } from './windows.js';

type Kind = 'minute' | 'month';

/** Whether the lease holds allowance to give back before it may spend (a limit changed). */
const returning = (lease: Lease) => lease.unspent.minute > 0 || lease.unspent.month > 0;

/**
 * When a limit differs from the one the lease's allowance was taken under (the project's setting changed), the
 * allowance not spent is set aside to go back to the window on the next refill, which leases again under the new
 * limit: a lowered quota or rate limit applies on the next request, not once the block is spent.
 */
function giveBackOnLimitChange(lease: Lease, limits: Record<Kind, number>, lane: Lane): void {
  for (const kind of lane === 'storefront' ? (['minute'] as const) : (['minute', 'month'] as const)) {
    if (lease.limit[kind] === limits[kind]) continue;
    if (lease.limit[kind] !== 0) {
      lease.unspent[kind] += lease.left[kind];
      lease.left[kind] = 0;
      lease.exhaustedAt[kind] = 0;
    }
    lease.limit[kind] = limits[kind];
  }
}

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
  /** The limit `left` was leased under: when the project's limit changes, `left` goes back to the window. */
  limit: Record<Kind, number>;
  /** Allowance leased and not spent, given back to the window by the next refill (the limit changed). */
  unspent: Record<Kind, number>;
}

// A window found full is not asked again for this long, so refused traffic costs at most one query a
// second per project and process, and a raised limit is seen within a second.
const RECHECK_FULL_MS = 1000;

/**
 * Whose budget a request spends: `merchant` (secret keys) the project's per-minute limit and monthly quota,
 * `storefront` (publishable keys, customer tokens) a per-minute budget of its own and no quota.
 */
export type Lane = 'merchant' | 'storefront';

// The rate_windows kind each lane's minute is counted under (the month is the merchant's alone).
const MINUTE_KIND: Record<Lane, string> = { merchant: 'minute', storefront: 'storefront_minute' };

/** The per-minute budget of the lane: the storefront's own setting, else the project's rate limit. */
export function minuteLimitOf(project: Project, lane: Lane): number {
  return lane === 'storefront'
    ? (project.storefrontRateLimitPerMinute ?? project.rateLimitPerMinute)
    : project.rateLimitPerMinute;
}

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

  /** Each storefront client's share of its project's storefront budget (`storefront_client_share_percent`). */
  readonly clients: StorefrontClients;

  constructor(private readonly db: Database) {
    this.clients = new StorefrontClients(db);
  }

  /**
   * Takes one request's allowance from the project's lane, leasing more from the database when this process
   * has none left. The storefront lane has no monthly quota: its month is never spent nor refused.
   */
  async take(project: Project, now = new Date(), lane: Lane = 'merchant'): Promise<RateDecision> {
    const windows = windowsAt(now);
    const leaseKey = `${project.id}|${lane}`;
    const lease = this.currentLease(leaseKey, windows, lane);
    giveBackOnLimitChange(lease, { minute: minuteLimitOf(project, lane), month: project.monthlyQuota }, lane);
    const crossed: RateDecision['crossed'] = [];
    let refusedBy: RateDecision['refusedBy'] = null;
    for (;;) {
      const full = (kind: Kind) => lease.left[kind] <= 0 && now.getTime() - lease.exhaustedAt[kind] < RECHECK_FULL_MS;
      if (full('month')) refusedBy = 'quota_exceeded';
      else if (full('minute')) refusedBy = 'rate_limited';
      else if (lease.left.month > 0 && lease.left.minute > 0 && !returning(lease)) {
        lease.left.month -= 1;
        lease.left.minute -= 1;
      } else {
        // One refill per project at a time in this process; requests arriving meanwhile wait for it and look again.
        let refill = this.refills.get(leaseKey);
        if (!refill) {
          const needed = (['month', 'minute'] as const).filter(
            (kind) => lease.left[kind] <= 0 || lease.unspent[kind] > 0,
          );
          refill = this.refill(project, lane, windows, lease, needed, crossed, now).finally(() =>
            this.refills.delete(leaseKey),
          );
          this.refills.set(leaseKey, refill);
        }
        await refill;
        continue;
      }
      break;
    }
    const limit = minuteLimitOf(project, lane);
    return {
      refusedBy,
      limit,
      remaining: Math.max(0, limit - lease.used.minute) + lease.left.minute,
      windows,
      crossed,
    };
  }

  private currentLease(leaseKey: string, windows: Windows, lane: Lane): Lease {
    let lease = this.leases.get(leaseKey);
    if (!lease || lease.period !== windows.period) {
      lease = {
        minuteStart: windows.minuteStart.getTime(),
        period: windows.period,
        left: { minute: 0, month: lane === 'storefront' ? Number.POSITIVE_INFINITY : 0 },
        used: { minute: 0, month: 0 },
        exhaustedAt: { minute: 0, month: 0 },
        limit: { minute: 0, month: 0 },
        unspent: { minute: 0, month: 0 },
      };
      this.leases.set(leaseKey, lease);
    } else if (lease.minuteStart !== windows.minuteStart.getTime()) {
      lease.minuteStart = windows.minuteStart.getTime();
      lease.left.minute = 0;
      lease.used.minute = 0;
      lease.exhaustedAt.minute = 0;
      lease.unspent.minute = 0;
    }
    return lease;
  }

  private async refill(
    project: Project,
    lane: Lane,
    windows: Windows,
    lease: Lease,
    kinds: readonly Kind[],
    crossed: RateDecision['crossed'],
    now: Date,
  ): Promise<void> {
    const limits: Record<Kind, number> = { minute: minuteLimitOf(project, lane), month: project.monthlyQuota };
    const starts: Record<Kind, Date> = { minute: windows.minuteStart, month: windows.monthStart };
    const stored: Record<Kind, string> = { minute: MINUTE_KIND[lane], month: 'month' };
    const request = kinds.map((kind) => ({
      kind: stored[kind],
      start: starts[kind],
      block: leaseBlock(limits[kind], lease.used[kind] - lease.unspent[kind]),
      limit: limits[kind],
      unspent: lease.unspent[kind],
    }));
    for (const kind of kinds) lease.unspent[kind] = 0;
    // Atomic per row: the grant is computed from the row's `used` under its lock (less what this process gives
    // back, `ret`), never past the limit.
    const rows = await grantWindows(this.db, project.id, request);
    for (const row of rows) {
      const kind: Kind = row.kind === 'month' ? 'month' : 'minute';
      // Leased under a limit changed meanwhile (another request saw the new one): it goes back on the next refill.
      if (lease.limit[kind] === limits[kind]) lease.left[kind] += row.last_grant;
      else lease.unspent[kind] += row.last_grant;
      lease.used[kind] = row.used;
      lease.exhaustedAt[kind] = row.last_grant === 0 ? now.getTime() : 0;
      if (kind === 'month' && row.last_grant > 0) crossed.push({ before: row.used - row.last_grant, used: row.used });
    }
  }
}
