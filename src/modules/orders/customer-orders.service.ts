import type { Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { listPage } from '../../shared/list-page.js';
import { sql } from '../../shared/sql-list.js';
import { toCustomerOrderResource, type OrderWithChildren } from './customer-orders.mappers.js';
import { findOrder } from './orders.service.js';
import { orderList } from './orders.statements.js';

const CHILD_ORDER = [{ createdAt: 'asc' }, { id: 'asc' }] as const;
const NOT_FOUND = 'Order not found.';

/** The orders with their fulfilments, refunds and returns, read in three statements for all of them. */
async function withChildren(db: Ctx['db'], orders: Order[]): Promise<OrderWithChildren[]> {
  if (orders.length === 0) return [];
  const orderId = { in: orders.map((order) => order.id) };
  const [fulfillments, refunds, returnRows] = await Promise.all([
    db.fulfillment.findMany({ where: { orderId }, orderBy: [...CHILD_ORDER] }),
    db.refund.findMany({ where: { orderId }, orderBy: [...CHILD_ORDER] }),
    db.return.findMany({ where: { orderId }, orderBy: [...CHILD_ORDER] }),
  ]);
  return orders.map((order) => ({
    ...order,
    fulfillments: fulfillments.filter((row) => row.orderId === order.id),
    refunds: refunds.filter((row) => row.orderId === order.id),
    returnRows: returnRows.filter((row) => row.orderId === order.id),
  }));
}

/**
 * A page of the customer's own orders of the caller's project, newest first, each with its fulfilments and refunds.
 * The customer is part of the cursor's filters, so a cursor of one customer's list does not continue another's.
 */
export async function listCustomerOrders(ctx: Ctx, customerId: string, page: { limit?: number; cursor?: string }) {
  const orders = orderList(ctx.db, [sql`project_id = ${ctx.project.id}`, sql`customer_id = ${customerId}`]);
  return listPage(ctx, {
    source: { count: () => orders.count(), fetch: async (args) => withChildren(ctx.db, await orders.fetch(args)) },
    query: { ...page, customer_id: customerId, sort: 'created_at' as const, order: 'desc' as const },
    sorts: { created_at: [{ field: 'createdAt', kind: 'date' }] },
    map: toCustomerOrderResource,
  });
}

/** One of the customer's own orders with its fulfilments and refunds; 404 "Order not found." for anyone else's. */
export async function getCustomerOrder(ctx: Ctx, customerId: string, id: string) {
  const order = await findOrder(ctx, ctx.db, id);
  if (order.customerId !== customerId) throw notFound(NOT_FOUND);
  const [withRows] = await withChildren(ctx.db, [order]);
  return toCustomerOrderResource(withRows);
}
