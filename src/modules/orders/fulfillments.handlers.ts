import type { PartialAreaHandlers } from '../../shared/contract.js';
import { toFulfillmentResource, toOrderResource } from './orders.mappers.js';
import { cancelOrder } from './order-cancel.js';
import { cancelFulfillment, createFulfillment, findFulfillment, listFulfillments } from './fulfillments.service.js';

export const fulfillmentHandlers = {
  listOrderFulfillments: async ({ path, ctx }) => ({
    status: 200,
    body: { data: (await listFulfillments(ctx, path.id)).map(toFulfillmentResource) },
  }),
  createOrderFulfillment: async ({ path, body, ctx, deps }) => ({
    status: 201,
    body: {
      data: toFulfillmentResource(await createFulfillment(ctx, path.id, body, { smtp: Boolean(deps.config.smtpUrl) })),
    },
  }),
  getOrderFulfillment: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toFulfillmentResource(await findFulfillment(ctx, ctx.db, path.id, path.fulfillment_id)) },
  }),
  cancelOrderFulfillment: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toFulfillmentResource(await cancelFulfillment(ctx, path.id, path.fulfillment_id)) },
  }),
  cancelOrder: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: {
      data: toOrderResource(await cancelOrder(ctx, path.id, body, { stripeApiBase: deps.config.stripeApiBase })),
    },
  }),
} satisfies PartialAreaHandlers<'orders'>;
