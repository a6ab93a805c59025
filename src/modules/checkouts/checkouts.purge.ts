import type { Database } from '../../db/client.js';

/** How long a completed checkout is kept after its completion (its order stays): openapi.yaml, the checkouts tag. */
export const COMPLETED_CHECKOUT_RETENTION_DAYS = 30;

/**
 * Deletes open checkouts past their expiry (7 days after their last change) with their lines and holds, checkouts
 * completed more than 30 days ago, and the lapsed holds of checkouts whose payment step timed out (their units
 * were already available again: a reservation past expires_at holds nothing).
 */
export async function purgeCheckouts(db: Database): Promise<Record<string, number>> {
  const cutoff = new Date(Date.now() - COMPLETED_CHECKOUT_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  const expired = await db.$executeRaw`
    DELETE FROM checkouts WHERE status <> 'completed' AND expires_at <= now()`;
  const completed = await db.$executeRaw`
    DELETE FROM checkouts WHERE status = 'completed' AND completed_at <= ${cutoff}`;
  const holds = await db.$executeRaw`
    DELETE FROM inventory_reservations WHERE checkout_id IS NOT NULL AND expires_at <= now()`;
  return { expired, completed, holds };
}
