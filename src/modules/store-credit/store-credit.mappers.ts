import type { components } from '../../generated/openapi.js';
import type { StoreCreditTransaction } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type StoreCreditTransactionResource = Schemas['StoreCreditTransaction'];
export type StoreCreditBalanceResource = Schemas['StoreCreditBalance'];

/** A ledger entry as the API shows it (merchant and customer alike). */
export function toStoreCreditTransactionResource(entry: StoreCreditTransaction): StoreCreditTransactionResource {
  return {
    id: entry.id,
    customer_id: entry.customerId,
    type: entry.type as StoreCreditTransactionResource['type'],
    amount: Number(entry.amount),
    balance_after: Number(entry.balanceAfter),
    currency: entry.currency,
    reason: entry.reason,
    expires_at: entry.expiresAt?.toISOString() ?? null,
    order_id: entry.orderId,
    checkout_id: entry.checkoutId,
    refund_id: entry.refundId,
    created_at: entry.createdAt.toISOString(),
  };
}
