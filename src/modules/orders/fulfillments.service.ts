import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Fulfillment, Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { emailLanguage } from '../../shared/email-language.js';
import { writeTx } from '../../shared/write.js';
import { stockLocation } from '../inventory/index.js';
import { recordEmail } from '../platform/index.js';
import { recordEvent } from '../store-events/index.js';
import { recordOrderMove } from './order-history.js';
import { toFulfillmentResource, type FulfillmentLineItem, type OrderLineItemResource } from './orders.mappers.js';
import { findOrder } from './orders.service.js';
import { lineIndexOf, lineLabel } from './line-refs.js';
import { returnedUnits } from './refunds.service.js';
import { renderShippingConfirmation } from './shipping-confirmation.email.js';

type FulfillmentCreate = components['schemas']['FulfillmentCreate'];
type FulfillmentStatus = Order['fulfillmentStatus'];

const FULFILLMENT_FIELDS = ['fulfillment_status'] as const;

/** Units shipped per order line item by the order's active (not cancelled) fulfilments. */
export async function shippedUnits(tx: Tx | Ctx['db'], orderId: string): Promise<number[]> {
  const order = await tx.order.findUniqueOrThrow({ where: { id: orderId }, select: { lineItems: true } });
  const shipped = (order.lineItems as OrderLineItemResource[]).map(() => 0);
  const active = await tx.fulfillment.findMany({ where: { orderId, status: 'success' }, select: { lineItems: true } });
  for (const fulfillment of active) {
    for (const line of fulfillment.lineItems as FulfillmentLineItem[]) shipped[line.line_item_index] += line.quantity;
  }
  return shipped;
}

function statusFor(order: Order, shipped: number[]): FulfillmentStatus {
  const items = order.lineItems as OrderLineItemResource[];
  if (shipped.every((units) => units === 0)) return 'unfulfilled';
  return items.every((item, index) => shipped[index] >= item.quantity) ? 'fulfilled' : 'partially_fulfilled';
}

/** The fulfilment's lines, each naming its line item by id and index; 400 for an unknown or repeated line, or too many units. */
function checkLines(order: Order, shipped: number[], lines: FulfillmentCreate['line_items']): FulfillmentLineItem[] {
  const items = order.lineItems as OrderLineItemResource[];
  const seen = new Set<number>();
  return lines.map((line, position) => {
    const field = `line_items[${position}]`;
    const index = lineIndexOf(items, line, field);
    const item = items[index];
    if (seen.has(index)) {
      throw new AppError('invalid_request', `Line item ${index} is listed twice.`, {
        field: `${field}.${line.line_item_id === undefined ? 'line_item_index' : 'line_item_id'}`,
      });
    }
    seen.add(index);
    const left = item.quantity - shipped[index];
    if (line.quantity > left) {
      throw new AppError(
        'invalid_request',
        `Line item ${index} (${lineLabel(item)}) has ${left} unfulfilled unit${left === 1 ? '' : 's'}; ${line.quantity} requested.`,
        { field: `${field}.quantity` },
      );
    }
    return { line_item_id: item.id, line_item_index: index, quantity: line.quantity };
  });
}

/** Sets the order's fulfillment_status from its active fulfilments; records order.updated (and order.fulfilled / order.partially_fulfilled when it moved there). */
async function followFulfillments(tx: Tx, ctx: Ctx, before: Order): Promise<Order> {
  const status = statusFor(before, await shippedUnits(tx, before.id));
  if (status === before.fulfillmentStatus) return before;
  const after = await tx.order.update({ where: { id: before.id }, data: { fulfillmentStatus: status } });
  const event =
    status === 'fulfilled'
      ? { type: 'order.fulfilled' as const, summary: 'fulfilled' }
      : status === 'partially_fulfilled'
        ? { type: 'order.partially_fulfilled' as const, summary: 'partially fulfilled' }
        : undefined;
  await recordOrderMove(tx, ctx, { before, after, fields: FULFILLMENT_FIELDS, event });
  return after;
}

/** Writes the shipping confirmation to the order's e-mail in the customer's language, and with `smtp` enqueues its delivery. */
async function emailShippingConfirmation(
  tx: Tx,
  ctx: Ctx,
  order: Order,
  fulfillment: Fulfillment,
  options: { smtp: boolean },
): Promise<void> {
  const customer = order.customerId
    ? await tx.customer.findUnique({ where: { id: order.customerId }, select: { locale: true } })
    : null;
  const language = emailLanguage(customer?.locale, ctx.project.locale);
  const items = order.lineItems as OrderLineItemResource[];
  const lines = fulfillment.lineItems as FulfillmentLineItem[];
  const rendered = renderShippingConfirmation({
    language,
    storeName: ctx.project.name,
    orderNumber: order.orderNumber,
    items: lines.map((line) => ({
      title: items[line.line_item_index].title,
      variantTitle: items[line.line_item_index].variant_title,
      quantity: line.quantity,
    })),
    trackingCompany: fulfillment.trackingCompany,
    trackingNumber: fulfillment.trackingNumber,
    trackingUrl: fulfillment.trackingUrl,
  });
  const email = await recordEmail(tx, ctx.project.id, {
    to: [order.email],
    ...rendered,
    template: 'shipping_confirmation',
    data: {
      order_id: order.id,
      order_number: order.orderNumber,
      fulfillment_id: fulfillment.id,
      tracking_company: fulfillment.trackingCompany,
      tracking_number: fulfillment.trackingNumber,
      tracking_url: fulfillment.trackingUrl,
    },
    locale: language,
  });
  if (options.smtp) await ctx.jobs.enqueue(tx, 'send-email', { v: 1, emailId: email.id });
}

/**
 * Records a shipment of some or all unfulfilled units from an active location, in one transaction: the
 * order row is locked first, so concurrent fulfilments of one order queue and their units never exceed
 * what was ordered; no stock moves (it left at completion). Records fulfillment.created and the order's
 * status change; with notify_customer, writes the shipping confirmation to the outbox (and, with `smtp`,
 * enqueues its delivery). 400 for a cancelled order, an unknown or repeated line, or too many units.
 */
export async function createFulfillment(
  ctx: Ctx,
  orderId: string,
  input: FulfillmentCreate,
  options: { smtp: boolean },
): Promise<Fulfillment> {
  return writeTx(ctx, {}, async (tx) => {
    const order = await findOrder(ctx, tx, orderId, true);
    if (order.status === 'cancelled') {
      throw new AppError('invalid_request', 'This order is cancelled and cannot be fulfilled.');
    }
    await stockLocation(ctx, tx, input.location_id, 'location_id');
    const lines = checkLines(order, await shippedUnits(tx, order.id), input.line_items);
    const fulfillment = await tx.fulfillment.create({
      data: {
        id: newId('ful_'),
        projectId: ctx.project.id,
        orderId: order.id,
        locationId: input.location_id,
        lineItems: lines,
        trackingCompany: input.tracking_company ?? null,
        trackingNumber: input.tracking_number ?? null,
        trackingUrl: input.tracking_url ?? null,
        notifyCustomer: input.notify_customer ?? false,
      },
    });
    await recordEvent(tx, ctx, {
      type: 'fulfillment.created',
      resourceType: 'fulfillment',
      resourceId: fulfillment.id,
      summary: `Fulfillment of order #${order.orderNumber} created`,
      payload: toFulfillmentResource(fulfillment),
    });
    await followFulfillments(tx, ctx, order);
    if (fulfillment.notifyCustomer) await emailShippingConfirmation(tx, ctx, order, fulfillment, options);
    return fulfillment;
  });
}

/** The order's fulfilments, oldest first; 404 for an order of another project. */
export async function listFulfillments(ctx: Ctx, orderId: string): Promise<Fulfillment[]> {
  await findOrder(ctx, ctx.db, orderId);
  return ctx.db.fulfillment.findMany({ where: { orderId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** A fulfilment of the project's order; 404 "Fulfillment not found." when it is not that order's. */
export async function findFulfillment(ctx: Ctx, db: Ctx['db'] | Tx, orderId: string, id: string) {
  await findOrder(ctx, db, orderId);
  const fulfillment = await db.fulfillment.findUnique({ where: { id } });
  if (!fulfillment || fulfillment.orderId !== orderId || fulfillment.projectId !== ctx.project.id) {
    throw notFound('Fulfillment not found.');
  }
  return fulfillment;
}

/** 400 when cancelling the fulfilment would leave fewer units shipped of a line than refunds and returns took back. */
async function checkNoneReturned(tx: Tx, order: Order, fulfillment: Fulfillment): Promise<void> {
  const shipped = await shippedUnits(tx, order.id);
  for (const line of fulfillment.lineItems as FulfillmentLineItem[]) shipped[line.line_item_index] -= line.quantity;
  const returned = await returnedUnits(tx, order);
  const index = returned.findIndex((units, line) => units > shipped[line]);
  if (index >= 0) {
    throw new AppError(
      'invalid_request',
      `Units of line item ${index} shipped by this fulfillment came back through a refund or are held by a return; it can no longer be cancelled.`,
    );
  }
}

/**
 * Cancels an active fulfilment (400 when already cancelled, its order is, or refunds took its units back) under the order's row lock: its units count
 * as unfulfilled again, the order's fulfillment_status follows, fulfillment.cancelled is recorded.
 */
export async function cancelFulfillment(ctx: Ctx, orderId: string, id: string): Promise<Fulfillment> {
  return writeTx(ctx, {}, async (tx) => {
    const order = await findOrder(ctx, tx, orderId, true);
    const before = await findFulfillment(ctx, tx, orderId, id);
    if (order.status === 'cancelled') {
      throw new AppError('invalid_request', 'This order is cancelled; its fulfillments can no longer change.');
    }
    if (before.status === 'cancelled') {
      throw new AppError('invalid_request', 'This fulfillment is already cancelled.');
    }
    await checkNoneReturned(tx, order, before);
    const after = await tx.fulfillment.update({
      where: { id },
      data: { status: 'cancelled', cancelledAt: new Date() },
    });
    await recordEvent(tx, ctx, {
      type: 'fulfillment.cancelled',
      resourceType: 'fulfillment',
      resourceId: id,
      summary: `Fulfillment of order #${order.orderNumber} cancelled`,
      changes: { status: { from: 'success', to: 'cancelled' } },
      payload: toFulfillmentResource(after),
    });
    await followFulfillments(tx, ctx, order);
    return after;
  });
}
