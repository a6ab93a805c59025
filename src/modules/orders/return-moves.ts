import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Order, Return } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { emailLanguage } from '../../shared/email-language.js';
import { AppError } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { restockUnits, stockLocation } from '../inventory/index.js';
import { recordEmail } from '../platform/index.js';
import { lineLabel } from './line-refs.js';
import type { OrderLineItemResource } from './orders.mappers.js';
import { settleCommittedRefund, type RefundOptions } from './refund-settlement.js';
import { refundLocked, returnedUnits } from './refunds.service.js';
import { renderReturnDecision, type ReturnDecision } from './return-decision.email.js';
import { receivedLines } from './return-lines.js';
import { paidForReturnedUnits } from './refund-allocation.js';
import type { ReturnLineItem } from './returns.mappers.js';
import { expectStatus, lockReturn, moveReturn } from './returns.service.js';

type Schemas = components['schemas'];
export interface MailOptions {
  smtp: boolean;
}

/** Writes the decision e-mail to the order's address in the customer's language, and with `smtp` enqueues its delivery. */
async function emailDecision(tx: Tx, ctx: Ctx, order: Order, row: Return, options: MailOptions): Promise<void> {
  const customer = order.customerId
    ? await tx.customer.findUnique({ where: { id: order.customerId }, select: { locale: true } })
    : null;
  const language = emailLanguage(customer?.locale, ctx.project.locale);
  const items = order.lineItems as OrderLineItemResource[];
  const decision = row.status as ReturnDecision;
  const rendered = renderReturnDecision({
    language,
    decision,
    storeName: ctx.project.name,
    orderNumber: order.orderNumber,
    items: (row.lineItems as ReturnLineItem[]).map((line) => ({
      name: lineLabel(items[line.line_item_index]),
      quantity: line.quantity,
    })),
    message: row.message,
  });
  const email = await recordEmail(tx, ctx.project.id, {
    to: [order.email],
    ...rendered,
    template: `return_${decision}`,
    data: { order_id: order.id, order_number: order.orderNumber, return_id: row.id, message: row.message },
    locale: language,
  });
  if (options.smtp) await ctx.jobs.enqueue(tx, 'send-email', { v: 1, emailId: email.id });
}

/**
 * Approves or rejects a requested return (400 from any other status) under the order's row lock, keeps the
 * message, e-mails the customer in their language through the outbox, and records return.approved or
 * return.rejected.
 */
export async function decideReturn(
  ctx: Ctx,
  id: string,
  decision: ReturnDecision,
  input: Schemas['ReturnDecision'],
  options: MailOptions,
): Promise<Return> {
  return writeTx(ctx, {}, async (tx) => {
    const { row, order } = await lockReturn(tx, ctx, id);
    expectStatus(row, ['requested'], decision);
    const now = new Date();
    const after = await moveReturn(tx, ctx, {
      row,
      order,
      data: {
        status: decision,
        message: input.message ?? null,
        ...(decision === 'approved' ? { approvedAt: now } : { rejectedAt: now }),
      },
      type: decision === 'approved' ? 'return.approved' : 'return.rejected',
      summary: decision,
    });
    await emailDecision(tx, ctx, order, after, options);
    return after;
  });
}

/**
 * Receives an approved return (400 otherwise) at an active location in one transaction under the order's row
 * lock: each line's units not damaged go back into stock there through the inventory ledger (reason restock);
 * records return.received.
 */
export async function receiveReturn(ctx: Ctx, id: string, input: Schemas['ReturnReceive']): Promise<Return> {
  return writeTx(ctx, {}, async (tx) => {
    const { row, order } = await lockReturn(tx, ctx, id);
    // The body's references first: a location or line of another project is refused on its field whatever the status.
    await stockLocation(ctx, tx, input.location_id, 'location_id');
    const items = order.lineItems as OrderLineItemResource[];
    const lines = receivedLines(items, row.lineItems as ReturnLineItem[], input.line_items);
    expectStatus(row, ['approved'], 'received');
    await restockUnits(
      tx,
      ctx,
      lines.map((line) => ({
        variant_id: items[line.line_item_index].variant_id!,
        location_id: input.location_id,
        quantity: line.restocked_quantity!,
      })),
    );
    const restocked = lines.reduce((sum, line) => sum + line.restocked_quantity!, 0);
    return moveReturn(tx, ctx, {
      row,
      order,
      data: { status: 'received', receivedAt: new Date(), locationId: input.location_id, lineItems: lines },
      type: 'return.received',
      summary: `received (${restocked} unit${restocked === 1 ? '' : 's'} restocked)`,
    });
  });
}

/**
 * Closes a received return (400 otherwise) in one transaction under the order's row lock, with a refund through
 * the refunds service's refundLocked (as createOrderRefund) when there is an amount: `refund_amount`, else what
 * the units paid capped at what is left to refund (nothing for an unpaid order); the order's store credit part
 * goes back first, as `store_credit_refund_method` says. Records return.closed (and the refund's events). A
 * refund through a provider is recorded pending and the provider asked after commit, as createRefund asks it.
 */
export async function closeReturn(
  ctx: Ctx,
  id: string,
  input: Schemas['ReturnClose'],
  options: RefundOptions = {},
): Promise<Return> {
  const closed = await writeTx(ctx, {}, async (tx) => {
    const { row, order } = await lockReturn(tx, ctx, id);
    expectStatus(row, ['received'], 'closed');
    const left = order.financialStatus === 'pending' ? 0n : order.total - order.totalRefunded;
    // What the returned units were paid, as a refund of those units without an amount computes it (per line, after
    // its part of the reductions; rounding leftovers on the last units): the units before this return's are those
    // refunds restocked and other returns hold.
    const returned = row.lineItems as ReturnLineItem[];
    const before = await returnedUnits(tx, order);
    for (const line of returned) before[line.line_item_index] -= line.quantity;
    const paid = BigInt(paidForReturnedUnits(order, returned, before));
    const amount = input.refund_amount ?? Number(paid < left ? paid : left);
    let refundId: string | null = null;
    let current = order;
    if (amount > 0) {
      try {
        const refunded = await refundLocked(tx, ctx, order, {
          amount,
          reason: input.reason ?? `Return ${row.id}`,
          store_credit_refund_method: input.store_credit_refund_method,
        });
        refundId = refunded.refund.id;
        current = refunded.order;
      } catch (error) {
        throw renameAmountField(error);
      }
    }
    return moveReturn(tx, ctx, {
      row,
      order: current,
      data: { status: 'closed', closedAt: new Date(), refundId },
      type: 'return.closed',
      summary: refundId ? `closed with a refund of ${amount} ${order.currency}` : 'closed without a refund',
    });
  });
  if (closed.refundId) await settleCommittedRefund(ctx, closed.refundId, options);
  return closed;
}

/** The refunds service names its `amount` field; this operation's body calls it `refund_amount`. */
function renameAmountField(error: unknown): unknown {
  if (error instanceof AppError && error.options.field === 'amount') {
    return new AppError(error.code, error.message, { ...error.options, field: 'refund_amount' });
  }
  return error;
}
