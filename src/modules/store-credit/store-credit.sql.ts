import type { Tx } from '../../db/client.js';

/**
 * The store-credit area's hand-written statements (tagged raw SQL, values bound): the account row lock that one
 * Prisma call cannot express. Each runs in the caller's transaction, which its service owns.
 */

/** Locks the customer's account row in the project until the transaction ends; whether there is one. */
export async function lockAccountRow(tx: Tx, projectId: string, customerId: string): Promise<boolean> {
  const locked = await tx.$queryRaw<Array<{ customer_id: string }>>`
    SELECT customer_id FROM store_credit_accounts
    WHERE customer_id = ${customerId} AND project_id = ${projectId} FOR UPDATE`;
  return locked.length > 0;
}
