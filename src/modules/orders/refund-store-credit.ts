import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { returnStoreCredit, storeCreditRefundShare } from '../store-credit/index.js';
import type { OrderPaymentResource } from './orders.mappers.js';

type Method = components['schemas']['RefundCreate']['store_credit_refund_method'];

/** What the order paid with store credit (its `store_credit` payments). */
export const paidWithStoreCredit = (order: Order): bigint =>
  ((order.payments ?? []) as OrderPaymentResource[])
    .filter((payment) => payment.provider === 'store_credit' && payment.status === 'succeeded')
    .reduce((sum, payment) => sum + BigInt(payment.amount), 0n);

/**
 * The part of a refund of `order` (before the refund) that goes back to the customer's store credit, returned to it in
 * the caller's transaction (openapi.yaml, createOrderRefund): earlier refunds took from the store credit part first,
 * so what is left of it is what the order paid with store credit minus everything refunded before.
 */
export async function refundStoreCreditPart(
  tx: Tx,
  ctx: Ctx,
  order: Order,
  refund: { refundId: string; amount: bigint; method: Method },
): Promise<bigint> {
  const share = storeCreditRefundShare(paidWithStoreCredit(order), order.totalRefunded, refund.amount, refund.method);
  if (share === 0n || !order.customerId) return 0n;
  await returnStoreCredit(tx, ctx, {
    customerId: order.customerId,
    currency: order.currency,
    amount: share,
    orderId: order.id,
    refundId: refund.refundId,
  });
  return share;
}
