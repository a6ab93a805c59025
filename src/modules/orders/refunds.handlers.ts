import type { PartialAreaHandlers } from '../../shared/contract.js';
import { toRefundResource } from './orders.mappers.js';
import { createRefund, listRefunds } from './refunds.service.js';

export const refundHandlers = {
  listOrderRefunds: async ({ path, ctx }) => {
    const { refunds, order } = await listRefunds(ctx, path.id);
    return { status: 200, body: { data: refunds.map((refund) => toRefundResource(refund, order.currency)) } };
  },
  createOrderRefund: async ({ path, body, ctx, deps }) => {
    const { refund, order } = await createRefund(ctx, path.id, body, { stripeApiBase: deps.config.stripeApiBase });
    return { status: 201, body: { data: toRefundResource(refund, order.currency) } };
  },
} satisfies PartialAreaHandlers<'orders'>;
