import type { AreaHandlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toOrderResource } from './orders.mappers.js';
import { findOrder, listOrders, payOrder } from './orders.service.js';

export const orderHandlers = {
  listOrders: async ({ query, ctx }) => ({ status: 200, body: await listOrders(ctx, query) }),
  getOrder: async ({ path, query, ctx }) => ({
    status: 200,
    body: { data: pickFields(toOrderResource(await findOrder(ctx, ctx.db, path.id)), query.fields) },
  }),
  payOrder: async ({ path, ctx }) => ({ status: 200, body: { data: toOrderResource(await payOrder(ctx, path.id)) } }),
} satisfies AreaHandlers<'orders'>;
