import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { DraftOrder } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { releaseReservations, reserveStock } from '../inventory/index.js';
import { recordEmail } from '../platform/index.js';
import { findDraftOrder, itemsOf, saveDraft } from './draft-orders.write.js';
import { toDraftLineItemResource } from './draft-orders.mappers.js';
import { emailLanguage, renderPaymentRequest } from './payment-request.email.js';
import { payUrlOf } from './pay-link.js';

type DraftOrderSend = components['schemas']['DraftOrderSend'];

/** 400 unless the draft has a customer e-mail and at least one line item (case mapping 5); `action` words the message. */
export function requireEmailAndItems(draft: DraftOrder, action: 'sending' | 'completing'): void {
  if (!draft.customerEmail)
    throw invalidField('customer_email', `Set customer_email before ${action} the draft order.`);
  if (draft.itemCount === 0)
    throw invalidField('items', `Add at least one line item before ${action} the draft order.`);
}

/**
 * Reserves the draft's variant units for the project's reservation_minutes (none when 0), replacing what an
 * earlier send held, and enqueues the job that releases them when they expire; 409 when a `deny` variant is short.
 */
async function holdUnits(tx: Tx, ctx: Ctx, draft: DraftOrder): Promise<void> {
  await releaseReservations(tx, ctx, draft, 'resent');
  const minutes = ctx.project.reservationMinutes;
  if (minutes === 0) return;
  const expiresAt = new Date(Date.now() + minutes * 60_000);
  const items = await itemsOf(tx, draft.id);
  const held = await reserveStock(
    tx,
    ctx,
    draft,
    items.flatMap((item) =>
      item.variantId
        ? [{ variantId: item.variantId, quantity: item.quantity, label: `${item.title} - ${item.variantTitle}` }]
        : [],
    ),
    expiresAt,
  );
  if (held.length > 0) {
    await ctx.jobs.enqueue(
      tx,
      'release-reservations',
      { v: 1, projectId: ctx.project.id, draftOrderId: draft.id },
      { startAfter: expiresAt },
    );
  }
}

/**
 * Writes the payment-request e-mail of an open or sent draft to the outbox (and, with `smtp`, enqueues its
 * SMTP delivery) in the customer's language, reserves its variant units (see holdUnits), marks the draft sent
 * and records draft_order.updated, all in one transaction. A completed draft, or one without e-mail or items,
 * is 400; a `deny` variant without enough available units is 409.
 */
export async function sendDraftOrder(
  ctx: Ctx,
  id: string,
  input: DraftOrderSend,
  options: { smtp: boolean },
): Promise<DraftOrder> {
  return writeTx(ctx, {}, async (tx) => {
    const draft = await findDraftOrder(ctx, tx, id, true);
    if (draft.status === 'completed') throw new AppError('invalid_request', 'A completed draft order cannot be sent.');
    requireEmailAndItems(draft, 'sending');
    const items = (await itemsOf(tx, id)).map(toDraftLineItemResource);
    const customer = draft.customerId
      ? await tx.customer.findUnique({ where: { id: draft.customerId }, select: { locale: true } })
      : null;
    const language = emailLanguage(customer?.locale, ctx.project.locale);
    const payUrl = payUrlOf(ctx.project, draft.id);
    const rendered = renderPaymentRequest({
      language,
      storeName: ctx.project.name,
      draftNumber: draft.draftNumber,
      currency: draft.currency,
      items: items.map((item) => ({
        title: item.title,
        variantTitle: item.variant_title,
        quantity: item.quantity,
        unitPrice: item.unit_price,
        total: item.total,
      })),
      subtotal: Number(draft.subtotal),
      shippingCost: Number(draft.shippingCost),
      discount: Number(draft.discount),
      tax: Number(draft.tax),
      taxInclusive: draft.taxInclusive,
      total: Number(draft.total),
      paymentDueDate: draft.paymentDueDate?.toISOString().slice(0, 10) ?? null,
      subject: input.subject,
      message: input.message,
      payUrl,
    });
    const email = await recordEmail(tx, ctx.project.id, {
      to: [draft.customerEmail!],
      cc: input.cc,
      bcc: input.bcc,
      ...rendered,
      template: 'draft_order_invoice',
      data: {
        draft_order_id: draft.id,
        draft_number: draft.draftNumber,
        total: Number(draft.total),
        currency: draft.currency,
        pay_url: payUrl,
        message: input.message ?? null,
      },
      locale: language,
    });
    if (options.smtp) await ctx.jobs.enqueue(tx, 'send-email', { v: 1, emailId: email.id });
    await holdUnits(tx, ctx, draft);
    return saveDraft(
      tx,
      ctx,
      draft,
      { ...draft, status: 'sent' },
      { what: `payment request sent to ${draft.customerEmail}`, always: true },
    );
  });
}
