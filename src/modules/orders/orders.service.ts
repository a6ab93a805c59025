import type pg from 'pg';
import type { Tx } from '../../db/client.js';
import { commitWith } from '../../db/client-transaction.js';
import type { Step } from '../../db/round-trip.js';
import type { operations } from '../../generated/openapi.js';
import type { DraftLineItem, DraftOrder, Order, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { nextNumber } from '../../shared/counters.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { filterInstantOf } from '../../shared/instants.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { sql } from '../../shared/sql-list.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { lineDiscounts, type DiscountApplicationResource } from '../discounts/index.js';
import type { StockAllocation } from '../inventory/index.js';
import { recordEvent, storeEventRow, type FieldChanges } from '../store-events/index.js';
import { paymentDueDate, type PaymentTerms } from '../../shared/payment-terms.js';
import { jsonColumn } from '../../shared/json-column.js';
import { recordOrderMove } from './order-history.js';
import { toOrderLineItem, toOrderResource, withLineId, type OrderPaymentResource } from './orders.mappers.js';
import {
  countCustomerOrder,
  customerOrderStep,
  insertOrderCompletingDraft,
  isPrismaTx,
  orderCompletingDraftStep,
  orderList,
  type NewOrder,
  type OrderCompletingDraft,
} from './orders.statements.js';

type OrderListQuery = NonNullable<operations['listOrders']['parameters']['query']>;

const FIRST_ORDER_NUMBER = 1001;
const PAYMENT_FIELDS = ['financial_status', 'paid_at'] as const;
const SORTS: SortColumns<'listOrders'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** The order of the project; 404 "Order not found." otherwise. With `lock`, its row stays locked for the transaction. */
export async function findOrder(ctx: Ctx, db: Ctx['db'] | Tx, id: string, lock = false): Promise<Order> {
  if (lock) await lockRows(db, 'orders', { projectId: ctx.project.id, ids: [id] });
  return findOwned(ctx, db.order, id, 'Order not found.');
}

/** A page of the project's orders matching the filters, newest first by default. */
export async function listOrders(ctx: Ctx, query: OrderListQuery) {
  return listPage(ctx, {
    source: orderList(ctx.db, [
      sql`project_id = ${ctx.project.id}`,
      query.customer_id !== undefined && sql`customer_id = ${query.customer_id}`,
      query.financial_status !== undefined && sql`financial_status = ${query.financial_status}`,
      query.status !== undefined && sql`status = ${query.status}`,
      query.created_after !== undefined && sql`created_at > ${filterInstantOf(query.created_after)}`,
    ]),
    query,
    sorts: SORTS,
    map: toOrderResource,
    cacheTotals: { list: 'orders', tables: ['orders'] },
  });
}

/**
 * Creates the order of a completed draft in the caller's transaction (createOrder with the draft's copies), the
 * customer's figures and order.created included. `planned` gives the order's id and creation time when the caller
 * needs them first; `paidBy`, the checkout that paid the draft and its payment.
 */
export async function createOrderFromDraft(
  tx: Tx,
  ctx: Ctx,
  draft: DraftOrder,
  items: DraftLineItem[],
  allocations: StockAllocation[] = [],
  planned: { id: string; at: Date } = { id: newId('ord_'), at: new Date() },
  paidBy: Omit<OrderOrigin, 'summary'> = {},
): Promise<Order> {
  return createOrder(tx, ctx, orderOfDraft(ctx, draft, items, allocations, planned), {
    ...paidBy,
    summary: (orderNumber) => orderCreatedSummary(orderNumber, draft),
  });
}

/** What createOrder adds to an order of a checkout: the checkout it came from and the payments taken. */
export interface OrderOrigin {
  checkoutId?: string;
  payments?: OrderPaymentResource[];
  summary: (orderNumber: number) => string;
}

/**
 * Creates an order in the caller's transaction, as every completion does (drafts and checkouts): adds one to the
 * customer's order_count and sets first/last_order_at; takes the next order number of the project (from 1001,
 * gap-free); keeps where the stock came from (`order.stockAllocations`) so a cancellation can return it; records
 * order.created. The number is taken last: its counter row stays locked until commit and serialises the project's
 * orders, so nothing else waits behind it.
 */
export async function createOrder(tx: Tx, ctx: Ctx, order: NewOrder, origin: OrderOrigin): Promise<Order> {
  if (order.customerId) await countCustomerOrder(tx, ctx.project.id, order.customerId, order.createdAt);
  const created = await tx.order.create({
    data: {
      ...order,
      checkoutId: origin.checkoutId ?? null,
      payments: origin.payments ?? [],
      orderNumber: await nextNumber(tx, ctx.project.id, 'order_number', FIRST_ORDER_NUMBER),
    },
  });
  await recordEvent(tx, ctx, {
    type: 'order.created',
    resourceType: 'order',
    resourceId: created.id,
    summary: origin.summary(created.orderNumber),
    payload: toOrderResource(created),
  });
  return created;
}

/**
 * createOrderFromDraft with the draft's completion, for a project where no subscriber listens to order.created
 * or draft_order.completed: the customer's figures first, then in one statement the order number, the order, the
 * draft completed and linked (`completed`, its new state) and both store events. The counter row, which serialises
 * the project's orders until commit, is thus locked for one statement and the commit. On a connection (`tx` in
 * inTransaction, these its last statements) `completed.after`'s steps, both statements and COMMIT go in one round
 * trip, so no round trip to this process falls between the counter's lock and the commit.
 */
export async function createOrderCompletingDraft(
  tx: Tx | pg.PoolClient,
  ctx: Ctx,
  draft: DraftOrder,
  items: DraftLineItem[],
  allocations: StockAllocation[],
  planned: { id: string; at: Date },
  completed: { changes: FieldChanges; after?: readonly Step<unknown>[] },
): Promise<Order> {
  const order = orderOfDraft(ctx, draft, items, allocations, planned);
  const written: OrderCompletingDraft = {
    projectId: ctx.project.id,
    first: FIRST_ORDER_NUMBER,
    order,
    draftId: draft.id,
    events: [
      storeEventRow(ctx, { type: 'order.created', resourceType: 'order', resourceId: order.id, summary: '' }),
      storeEventRow(ctx, {
        type: 'draft_order.completed',
        resourceType: 'draft_order',
        resourceId: draft.id,
        summary: '',
        changes: completed.changes,
      }),
    ],
    summaries: [orderCreatedSummary('{number}', draft), draftCompletedSummary(draft, '{number}')],
  };
  if (!isPrismaTx(tx)) {
    const counted = draft.customerId ? [customerOrderStep(ctx.project.id, draft.customerId, planned.at)] : [];
    const rows = await commitWith(tx, [...(completed.after ?? []), ...counted, orderCompletingDraftStep(written)]);
    return rows.at(-1)![0] as Order;
  }
  if (draft.customerId) await countCustomerOrder(tx, ctx.project.id, draft.customerId, planned.at);
  return insertOrderCompletingDraft(tx, written);
}

/** The summary of order.created for an order made from `draft`. */
const orderCreatedSummary = (orderNumber: number | string, draft: DraftOrder) =>
  `Order #${orderNumber} created from draft order #${draft.draftNumber}`;

/** The summary of draft_order.completed for `draft` completed as order `orderNumber`. */
export const draftCompletedSummary = (draft: DraftOrder, orderNumber: number | string) =>
  `Draft order #${draft.draftNumber} completed as order #${orderNumber}`;

/**
 * The order of `draft` as created (all but its number): copies of the items (each with its part of the reductions)
 * and amounts, the reductions applied, net terms due from today.
 */
function orderOfDraft(
  ctx: Ctx,
  draft: DraftOrder,
  items: DraftLineItem[],
  allocations: StockAllocation[],
  planned: { id: string; at: Date },
): NewOrder {
  const now = planned.at;
  return {
    id: planned.id,
    projectId: ctx.project.id,
    customerId: draft.customerId,
    email: draft.customerEmail!,
    currency: draft.currency,
    lineItems: itemsWithDiscounts(draft, items),
    discountApplications: draft.discountApplications as Prisma.InputJsonValue,
    subtotal: draft.subtotal,
    tax: draft.tax,
    taxData: jsonColumn(draft.taxData),
    shippingCost: draft.shippingCost,
    discount: draft.discount,
    total: draft.total,
    shippingAddress: jsonColumn(draft.shippingAddress),
    billingAddress: jsonColumn(draft.billingAddress),
    paymentTerms: draft.paymentTerms,
    paymentDueDate: paymentDueDate(draft.paymentTerms as PaymentTerms, now),
    draftOrderId: draft.id,
    stockAllocations: allocations as unknown as Prisma.InputJsonValue,
    createdAt: now,
  };
}

/** The draft's items as the order keeps them, each with its part of the reductions when it has one. */
function itemsWithDiscounts(draft: DraftOrder, items: DraftLineItem[]) {
  const discounts = lineDiscounts(draft.discountApplications as DiscountApplicationResource[], items.length);
  return items.map((item, i) => ({
    ...withLineId(toOrderLineItem(item)),
    ...(discounts[i] > 0 && { discount: discounts[i] }),
  }));
}

/**
 * Marks a pending order paid (400 when already paid, refunded ones included; 409 when cancelled, nothing written): sets
 * paid_at, adds the total to the customer's total_spent, records order.paid and order.updated, all in one transaction.
 */
export async function payOrder(ctx: Ctx, id: string): Promise<Order> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await findOrder(ctx, tx, id, true);
    if (before.status === 'cancelled')
      throw new AppError('conflict', 'This order is cancelled and cannot be marked paid.');
    if (before.financialStatus !== 'pending') throw new AppError('invalid_request', 'This order is already paid.');
    return markOrderPaid(tx, ctx, before);
  });
}

/**
 * Marks a pending order (locked or just created by the caller's transaction) paid: paid_at, the customer's
 * total_spent raised by the total, order.paid and order.updated recorded. `data` adds columns written with it
 * (a checkout's recorded payments).
 */
export async function markOrderPaid(
  tx: Tx,
  ctx: Ctx,
  before: Order,
  data: Prisma.OrderUncheckedUpdateInput = {},
): Promise<Order> {
  const after = await tx.order.update({
    where: { id: before.id },
    data: { ...data, financialStatus: 'paid', paidAt: new Date() },
  });
  if (after.customerId) {
    await tx.$executeRaw`UPDATE customers SET total_spent = total_spent + ${after.total} WHERE id = ${after.customerId} AND project_id = ${ctx.project.id}`;
  }
  await recordOrderMove(tx, ctx, {
    before,
    after,
    fields: PAYMENT_FIELDS,
    event: { type: 'order.paid', summary: 'paid' },
  });
  return after;
}
