import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toOrderResource } from '../orders/index.js';
import { completeDraftOrder } from './draft-orders.complete.js';
import { applyDraftCode, removeDraftCode } from './draft-orders.discounts.js';
import { listDraftOrders } from './draft-orders.list.js';
import { toDraftLineItemResource, toDraftOrderResource } from './draft-orders.mappers.js';
import { sendDraftOrder } from './draft-orders.send.js';
import { createDraftOrder, deleteDraftOrder, getDraftOrder, updateDraftOrder } from './draft-orders.service.js';
import { addLineItems, deleteLineItem, updateLineItem } from './line-items.service.js';

export const draftOrderHandlers = {
  listDraftOrders: async ({ query, ctx }) => ({ status: 200, body: await listDraftOrders(ctx, query) }),
  createDraftOrder: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toDraftOrderResource(await createDraftOrder(ctx, body)) },
  }),
  getDraftOrder: async ({ path, query, ctx }) => {
    const { draft, items } = await getDraftOrder(ctx, path.id, query.expand?.includes('items') ?? false);
    return { status: 200, body: { data: pickFields(toDraftOrderResource(draft, items), query.fields) } };
  },
  updateDraftOrder: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toDraftOrderResource(await updateDraftOrder(ctx, path.id, body)) },
  }),
  deleteDraftOrder: async ({ path, ctx }) => {
    await deleteDraftOrder(ctx, path.id);
    return { status: 204, body: undefined };
  },
  addDraftOrderItems: async ({ path, body, ctx }) => {
    const { items, draft } = await addLineItems(ctx, path.id, body.items);
    return {
      status: 201,
      body: { data: items.map(toDraftLineItemResource), draft_order: toDraftOrderResource(draft) },
    };
  },
  updateDraftOrderItem: async ({ path, body, ctx }) => {
    const { item, draft } = await updateLineItem(ctx, path.id, path.item_id, body);
    return { status: 200, body: { data: toDraftLineItemResource(item), draft_order: toDraftOrderResource(draft) } };
  },
  deleteDraftOrderItem: async ({ path, ctx }) => {
    await deleteLineItem(ctx, path.id, path.item_id);
    return { status: 204, body: undefined };
  },
  sendDraftOrder: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: {
      data: toDraftOrderResource(
        await sendDraftOrder(ctx, path.id, body ?? {}, { smtp: Boolean(deps.config.smtpUrl) }),
      ),
    },
  }),
  applyDraftOrderDiscountCode: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toDraftOrderResource(await applyDraftCode(ctx, path.id, body.code)) },
  }),
  removeDraftOrderDiscountCode: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toDraftOrderResource(await removeDraftCode(ctx, path.id, path.code)) },
  }),
  completeDraftOrder: async ({ path, ctx }) => ({
    status: 201,
    body: { data: toOrderResource(await completeDraftOrder(ctx, path.id)) },
  }),
} satisfies AreaHandlers<'draft-orders'>;
