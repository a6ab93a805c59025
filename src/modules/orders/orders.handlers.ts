import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { withMetafields } from '../metafields/index.js';
import { fulfillmentHandlers } from './fulfillments.handlers.js';
import { toOrderResource } from './orders.mappers.js';
import { findOrder, listOrders, payOrder } from './orders.service.js';
import { refundHandlers } from './refunds.handlers.js';

/** The returns tag's handlers: returns are an order's sub-resource, so they live in this area. */
export { returnHandlers } from './returns.handlers.js';

export const orderHandlers = {
  listOrders: async ({ query, ctx }) => {
    const page = await listOrders(ctx, query);
    return { status: 200, body: { ...page, data: await withMetafields(ctx, 'order', query, page.data) } };
  },
  getOrder: async ({ path, query, ctx }) => {
    const order = pickFields(toOrderResource(await findOrder(ctx, ctx.db, path.id)), query.fields);
    return { status: 200, body: { data: (await withMetafields(ctx, 'order', query, [order]))[0] } };
  },
  payOrder: async ({ path, ctx }) => ({ status: 200, body: { data: toOrderResource(await payOrder(ctx, path.id)) } }),
  ...fulfillmentHandlers,
  ...refundHandlers,
} satisfies AreaHandlers<'orders'>;
