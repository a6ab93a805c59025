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
 * the caller's transaction (openapi.yaml, createOrderRefund): what is left of it is what the order paid with store
 * credit minus what earlier refunds returned as store credit (a refund with `original_payment` returns none of it).
 * The caller holds the order's row lock, so the earlier refunds read here are all of them.
 */
export async function refundStoreCreditPart(
  tx: Tx,
  ctx: Ctx,
  order: Order,
  refund: { refundId: string; amount: bigint; method: Method },
): Promise<bigint> {
  const paid = paidWithStoreCredit(order);
  if (paid === 0n || refund.method === 'original_payment' || !order.customerId) return 0n;
  const returned = await tx.refund.aggregate({ where: { orderId: order.id }, _sum: { storeCreditAmount: true } });
  const share = storeCreditRefundShare(paid, returned._sum.storeCreditAmount ?? 0n, refund.amount, refund.method);
  if (share === 0n) return 0n;
  await returnStoreCredit(tx, ctx, {
    customerId: order.customerId,
    currency: order.currency,
    amount: share,
    orderId: order.id,
    refundId: refund.refundId,
  });
  return share;
}
