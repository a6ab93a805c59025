import { createHash } from 'node:crypto';
import type { Database } from '../../db/client.js';
import { clientNetwork } from '../../shared/client-network.js';
import { takeOne } from './usage.sql.js';

/**
 * Takes one request from a per-client budget of the project's current minute (`key` names the client: an
 * address, an email's hash), shared by every process: true when taken, false when the minute's `limit` is
 * already used. One atomic statement; the count never passes the limit.
 */
export async function takeClientBudget(
  db: Database,
  projectId: string,
  key: string,
  limit: number,
  minuteStart: Date,
): Promise<boolean> {
  const rows = await takeOne(db, projectId, key, limit, minuteStart);
  return rows.length > 0;
}

/** The budget key of an email address: its hash, so counters never hold the address itself. */
export function emailBudgetKey(email: string): string {
  return `auth_email:${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22)}`;
}

/** The budget key of a client address (an IPv6 address counts as its network). */
export const addressBudgetKey = (address: string): string => `auth_ip:${clientNetwork(address)}`;

/** The budget key of checkout creation from a client address (an IPv6 address counts as its network). */
export const checkoutBudgetKey = (address: string): string => `checkout_ip:${clientNetwork(address)}`;
