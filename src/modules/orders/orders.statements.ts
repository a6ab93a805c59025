import type { Tx } from '../../db/client.js';
import { preparedStatement, selectList, type Columns, type Queryable } from '../../db/prepared.js';
import { Prisma, type Order } from '../../generated/prisma/client.js';
import { sqlList } from '../../shared/sql-list.js';
import type { storeEventRow } from '../store-events/index.js';

const ORDER_COLUMNS: Columns<Order> = {
  id: 'id',
  projectId: 'project_id',
  orderNumber: 'order_number',
  status: 'status',
  financialStatus: 'financial_status',
  totalRefunded: 'total_refunded',
  fulfillmentStatus: 'fulfillment_status',
  cancelReason: 'cancel_reason',
  cancelledAt: 'cancelled_at',
  stockAllocations: 'stock_allocations',
  customerId: 'customer_id',
  email: 'email',
  currency: 'currency',
  lineItems: 'line_items',
  subtotal: 'subtotal',
  tax: 'tax',
  taxData: 'tax_data',
  shippingCost: 'shipping_cost',
  discount: 'discount',
  discountApplications: 'discount_applications',
  total: 'total',
  shippingAddress: 'shipping_address',
  billingAddress: 'billing_address',
  paymentTerms: 'payment_terms',
  paymentDueDate: 'payment_due_date',
  draftOrderId: 'draft_order_id',
  checkoutId: 'checkout_id',
  payments: 'payments',
  returns: 'returns',
  paidAt: 'paid_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Pages of the order list as prepared statements (src/shared/sql-list.ts). */
export const orderList = sqlList<Order>('orders', 'orders', ORDER_COLUMNS);

type EventRow = ReturnType<typeof storeEventRow>;

/** An order as completion inserts it, all but its number (JSON columns as values, null or Prisma.DbNull for SQL NULL). */
export type NewOrder = Pick<
  Order,
  | 'id'
  | 'projectId'
  | 'customerId'
  | 'email'
  | 'currency'
  | 'subtotal'
  | 'tax'
  | 'shippingCost'
  | 'discount'
  | 'total'
  | 'paymentTerms'
  | 'paymentDueDate'
  | 'draftOrderId'
  | 'createdAt'
> & {
  lineItems: Prisma.InputJsonValue;
  stockAllocations: Prisma.InputJsonValue;
  /** The reductions applied (DiscountApplication[]); none when left out. */
  discountApplications?: Prisma.InputJsonValue;
  taxData: Prisma.InputJsonValue | typeof Prisma.DbNull;
  shippingAddress: Prisma.InputJsonValue | typeof Prisma.DbNull;
  billingAddress: Prisma.InputJsonValue | typeof Prisma.DbNull;
};

const orderColumns = selectList(ORDER_COLUMNS);

// Parameters: $1 project, $2 first number, $3-$19 the order's columns, $20 the time, $21 the draft, then per
// event id, type, resource type, resource id, actor type, actor id, summary ({number} for the order's number),
// metadata ($22-$37), and $38 the order's discount applications.
const ORDER_COMPLETING_DRAFT = `
  WITH number AS (
    INSERT INTO project_counters (project_id, name, value) VALUES ($1, 'order_number', $2)
    ON CONFLICT (project_id, name) DO UPDATE SET value = project_counters.value + 1
    RETURNING value
  ), created AS (
    INSERT INTO orders (id, project_id, order_number, customer_id, email, currency, line_items, subtotal, tax, tax_data,
      shipping_cost, discount, total, shipping_address, billing_address, payment_terms, payment_due_date,
      draft_order_id, stock_allocations, created_at, updated_at, discount_applications)
    SELECT $3, $1, number.value, $4, $5, $6, $7::jsonb, $8::bigint, $9::bigint, $10::jsonb, $11::bigint, $12::bigint,
      $13::bigint, $14::jsonb, $15::jsonb, $16, $17::date, $18, $19::jsonb, $20::timestamptz, $20::timestamptz,
      $38::jsonb
    FROM number
    RETURNING ${orderColumns}
  ), draft AS (
    UPDATE draft_orders SET status = 'completed', order_id = $3, completed_at = $20::timestamptz, updated_at = $20::timestamptz
    WHERE id = $21
  ), events AS (
    INSERT INTO store_events (id, project_id, type, resource_type, resource_id, actor_type, actor_id, summary, metadata, created_at)
    SELECT event.id, $1, event.type, event.resource_type, event.resource_id, event.actor_type, event.actor_id,
      replace(event.summary, '{number}', created."orderNumber"::text), event.metadata::jsonb, $20::timestamptz
    FROM created, (VALUES ($22, $23, $24, $25, $26, $27, $28, $29), ($30, $31, $32, $33, $34, $35, $36, $37))
      AS event (id, type, resource_type, resource_id, actor_type, actor_id, summary, metadata)
  )
  SELECT * FROM created`;

const orderCompletingDraft = preparedStatement<Order>('order_completing_draft', ORDER_COMPLETING_DRAFT);

/** Whether `db` is a Prisma transaction (else a connection or pool for prepared statements). */
export const isPrismaTx = (db: Tx | Queryable): db is Tx => '$queryRawUnsafe' in db;

const jsonText = (value: unknown) =>
  value === null || value === undefined || value === Prisma.DbNull ? null : JSON.stringify(value);

/** What insertOrderCompletingDraft writes. */
export interface OrderCompletingDraft {
  projectId: string;
  first: number;
  order: NewOrder;
  draftId: string;
  events: [EventRow, EventRow];
  summaries: [string, string];
}

const orderCompletingDraftValues = (input: OrderCompletingDraft) => {
  const { order } = input;
  return [
    input.projectId,
    input.first,
    order.id,
    order.customerId,
    order.email,
    order.currency,
    jsonText(order.lineItems),
    order.subtotal,
    order.tax,
    jsonText(order.taxData),
    order.shippingCost,
    order.discount,
    order.total,
    jsonText(order.shippingAddress),
    jsonText(order.billingAddress),
    order.paymentTerms,
    order.paymentDueDate?.toISOString().slice(0, 10) ?? null,
    order.draftOrderId,
    jsonText(order.stockAllocations),
    order.createdAt,
    input.draftId,
    ...input.events.flatMap((event, i) => [
      event.id,
      event.type,
      event.resourceType,
      event.resourceId,
      event.actorType,
      event.actorId,
      input.summaries[i],
      JSON.stringify(event.metadata),
    ]),
    jsonText(order.discountApplications ?? []),
  ];
};

/**
 * In the caller's transaction and one statement: the project's next order number (the counter row locked until
 * commit), the order inserted with it, the draft marked completed and linked at the order's creation time, and the
 * two store events (`summaries`: their texts, `{number}` standing for the order's number). Resolves to the order.
 */
export async function insertOrderCompletingDraft(tx: Tx, input: OrderCompletingDraft): Promise<Order> {
  const [created] = await tx.$queryRawUnsafe<Order[]>(ORDER_COMPLETING_DRAFT, ...orderCompletingDraftValues(input));
  return created;
}

/** insertOrderCompletingDraft as a step of a batch (src/db/round-trip.ts); its one row is the order. */
export const orderCompletingDraftStep = (input: OrderCompletingDraft) =>
  orderCompletingDraft.with(orderCompletingDraftValues(input));

const COUNT_ORDER = `UPDATE customers SET order_count = order_count + 1, first_order_at = COALESCE(first_order_at, $3), last_order_at = $3
   WHERE id = $1 AND project_id = $2`;
const countOrder = preparedStatement('customer_count_order', COUNT_ORDER);

/** countCustomerOrder as a step of a batch (src/db/round-trip.ts). */
export const customerOrderStep = (projectId: string, customerId: string, at: Date) =>
  countOrder.with([customerId, projectId, at]);

/** Adds one order placed at `at` to the customer's figures (an increment, never a recount; the row lock queues concurrent orders of one customer). */
export async function countCustomerOrder(tx: Tx, projectId: string, customerId: string, at: Date): Promise<void> {
  await tx.$executeRawUnsafe(COUNT_ORDER, customerId, projectId, at);
}
