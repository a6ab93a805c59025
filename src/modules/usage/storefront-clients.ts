import type { Database } from '../../db/client.js';
import type { Project } from '../../generated/prisma/client.js';
import { clientNetwork } from '../../shared/client-network.js';
import { ProjectLru } from '../../shared/project-lru.js';
import { grantClientWindow } from './usage.sql.js';
import type { Windows } from './windows.js';

/** What one process holds of one storefront client's share in the current minute. */
interface ClientLease {
  minuteStart: number;
  /** The share `left` was leased under: when the project's settings change it, `left` goes back to the window. */
  limit: number;
  /** Requests this process may still accept from the client without asking the database. */
  left: number;
  /** The window's shared `used` as of this process's latest lease. */
  used: number;
  /** When a lease last came back empty: the share is spent (asked again after a second). */
  exhaustedAt: number;
  /** Leased and not spent, given back by the next refill (the share changed). */
  unspent: number;
}

// A client found at its share is not asked about again for this long, so a flooding client costs at most one
// statement a second per process, however fast it sends.
const RECHECK_FULL_MS = 1000;
// Leases of the clients seen lately (about 150 bytes each: 50,000 stay under 10 MB), one project's at most a quarter
// (ProjectLru): past it the project's own least recently seen go, else the process's, and what they held of the
// current minute is lost to that client alone; one store's traffic never pushes every other store's clients out.
const MAX_CLIENTS = 50_000;

/**
 * The requests a minute one storefront client (a client address, a signed-in customer) may make: the project's
 * `storefront_client_share_percent` of its storefront budget, rounded down, at least 1.
 */
export function clientShareOf(project: Project, storefrontBudget: number): number {
  return Math.max(1, Math.floor((storefrontBudget * project.storefrontClientSharePercent) / 100));
}

/**
 * How much of a client's share a process leases at once: a tenth of what is left, at most a twentieth of the share,
 * at least 1, so a client's allowance parked in one process while another refuses it stays small.
 */
export function clientBlock(limit: number, usedSoFar: number): number {
  const left = Math.max(0, limit - usedSoFar);
  return Math.max(1, Math.min(Math.ceil(left / 10), Math.ceil(limit / 20)));
}

/** The budget key of a storefront client address (its counter in rate_windows): an IPv6 address counts as its network. */
export const storefrontAddressKey = (address: string): string => `sf_ip:${clientNetwork(address)}`;
/** The budget key of a signed-in storefront customer. */
export const storefrontCustomerKey = (customerId: string): string => `sf_customer:${customerId}`;

export interface ClientDecision {
  /** The client key that refused the request, or null when every one accepted it. */
  refusedBy: string | null;
  limit: number;
  /** The least that any of the request's clients has left this minute (across processes, as leased). */
  remaining: number;
}

/**
 * Per-client shares of a project's storefront budget, shared by every process on one database, without a
 * database round trip on most requests: like the project budgets (rate-limiter.ts), each process leases small
 * blocks of a client's share from its `rate_windows` counter in one atomic statement that never lets `used` pass
 * the share, then spends them locally.
 */
export class StorefrontClients {
  private readonly leases: ProjectLru<ClientLease>;
  private readonly refills = new Map<string, Promise<void>>();

  /** `maxClients`: the leases kept, all projects together (tests make it small). */
  constructor(
    private readonly db: Database,
    maxClients = MAX_CLIENTS,
  ) {
    this.leases = new ProjectLru<ClientLease>({ maxSize: maxClients });
  }

  /**
   * Takes one request from the share of every client `keys` names (all of them must have some left); refused
   * requests take nothing from the clients that refused them.
   */
  async take(
    projectId: string,
    keys: readonly string[],
    limit: number,
    windows: Windows,
    now: Date,
  ): Promise<ClientDecision> {
    const decision: ClientDecision = { refusedBy: null, limit, remaining: limit };
    for (const key of keys) {
      const remaining = await this.takeOne(projectId, key, limit, windows, now.getTime());
      if (remaining === null) return { refusedBy: key, limit, remaining: 0 };
      decision.remaining = Math.min(decision.remaining, remaining);
    }
    return decision;
  }

  /** One request from one client's share: what it has left after it, or null when its share is spent. */
  private async takeOne(
    projectId: string,
    key: string,
    limit: number,
    windows: Windows,
    now: number,
  ): Promise<number | null> {
    const leaseKey = `${projectId}|${key}`;
    for (;;) {
      const lease = this.currentLease(projectId, key, windows, limit);
      if (lease.left > 0 && lease.unspent === 0) {
        lease.left -= 1;
        return Math.max(0, limit - lease.used) + lease.left;
      }
      if (lease.unspent === 0 && now - lease.exhaustedAt < RECHECK_FULL_MS) return null;
      // One refill per client at a time in this process; requests arriving meanwhile wait for it and look again.
      let refill = this.refills.get(leaseKey);
      if (!refill) {
        refill = this.refill(projectId, key, windows, lease, now).finally(() => this.refills.delete(leaseKey));
        this.refills.set(leaseKey, refill);
      }
      await refill;
    }
  }

  private currentLease(projectId: string, key: string, windows: Windows, limit: number): ClientLease {
    let lease = this.leases.get(projectId, key);
    const minuteStart = windows.minuteStart.getTime();
    if (!lease || lease.minuteStart !== minuteStart) {
      lease = { minuteStart, limit, left: 0, used: 0, exhaustedAt: 0, unspent: 0 };
      this.leases.set(projectId, key, lease);
    } else if (lease.limit !== limit) {
      lease.unspent += lease.left;
      lease.left = 0;
      lease.exhaustedAt = 0;
      lease.limit = limit;
    }
    return lease;
  }

  private async refill(
    projectId: string,
    key: string,
    windows: Windows,
    lease: ClientLease,
    now: number,
  ): Promise<void> {
    const { limit, unspent } = lease;
    const block = clientBlock(limit, lease.used - unspent);
    lease.unspent = 0;
    // Atomic: the grant is computed from the row's `used` (less what this process gives back) under its lock.
    const row = await grantClientWindow(this.db, projectId, key, windows.minuteStart, { block, limit, unspent });
    // Leased under a share changed meanwhile: it goes back on the next refill.
    if (lease.limit === limit) lease.left += row.last_grant;
    else lease.unspent += row.last_grant;
    lease.used = row.used;
    lease.exhaustedAt = row.last_grant === 0 ? now : 0;
  }
}
