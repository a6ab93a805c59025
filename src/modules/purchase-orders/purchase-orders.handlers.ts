import type { AreaHandlers } from '../../shared/contract.js';
import { listPurchaseOrders } from './purchase-orders.list.js';
import { toPurchaseOrderResource, type PurchaseOrderRow } from './purchase-orders.mappers.js';
import { receivePurchaseOrder } from './purchase-orders.receive.js';
import {
  cancelPurchaseOrder,
  createPurchaseOrder,
  findPurchaseOrder,
  placePurchaseOrder,
  updatePurchaseOrder,
} from './purchase-orders.service.js';

const envelope = (order: PurchaseOrderRow) => ({ data: toPurchaseOrderResource(order) });

export const purchaseOrderHandlers = {
  listPurchaseOrders: async ({ query, ctx }) => ({ status: 200, body: await listPurchaseOrders(ctx, query) }),
  createPurchaseOrder: async ({ body, ctx }) => ({ status: 201, body: envelope(await createPurchaseOrder(ctx, body)) }),
  getPurchaseOrder: async ({ path, ctx }) => ({
    status: 200,
    body: envelope(await findPurchaseOrder(ctx, ctx.db, path.id)),
  }),
  updatePurchaseOrder: async ({ path, body, ctx }) => ({
    status: 200,
    body: envelope(await updatePurchaseOrder(ctx, path.id, body)),
  }),
  placePurchaseOrder: async ({ path, ctx }) => ({
    status: 200,
    body: envelope(await placePurchaseOrder(ctx, path.id)),
  }),
  receivePurchaseOrder: async ({ path, body, ctx }) => ({
    status: 200,
    body: envelope(await receivePurchaseOrder(ctx, path.id, body)),
  }),
  cancelPurchaseOrder: async ({ path, ctx }) => ({
    status: 200,
    body: envelope(await cancelPurchaseOrder(ctx, path.id)),
  }),
} satisfies AreaHandlers<'purchase-orders'>;
