import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Customer, DraftLineItem, DraftOrder, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { nextNumber } from '../../shared/counters.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { findCustomer } from '../customers/index.js';
import { releaseReservations } from '../inventory/index.js';
import { recordEvent } from '../store-events/index.js';
import { jsonColumn } from '../../shared/json-column.js';
import { toDraftOrderResource, toStoredAddress } from './draft-orders.mappers.js';
import { totalled } from './draft-orders.discounts.js';
import { draftForChange, findDraftOrder, itemsOf, saveDraft, withTotals } from './draft-orders.write.js';
import { repriceItems, savePrices } from './line-pricing.js';
import { itemChanges } from './line-items.service.js';
import { paymentDueDate, type PaymentTerms } from '../../shared/payment-terms.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';

type DraftOrderCreate = components['schemas']['DraftOrderCreate'];
type DraftOrderUpdate = components['schemas']['DraftOrderUpdate'];

/** A live customer of the project named in a request body; 400 on `customer_id` otherwise. */
async function customerFor(ctx: Ctx, tx: Tx, id: string): Promise<Customer> {
  try {
    return await findCustomer(ctx, tx, id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') {
      throw invalidField('customer_id', `customer_id ${id} does not name a customer of this project.`);
    }
    throw error;
  }
}

/** The draft with its line items when asked for. */
export async function getDraftOrder(
  ctx: Ctx,
  id: string,
  withItems: boolean,
): Promise<{ draft: DraftOrder; items?: DraftLineItem[] }> {
  const draft = await findDraftOrder(ctx, ctx.db, id);
  return { draft, items: withItems ? await itemsOf(ctx.db, id) : undefined };
}

/**
 * Creates an empty open draft with the next draft number of the project (gap-free: the number is taken
 * in the creating transaction) and records draft_order.created.
 */
export async function createDraftOrder(ctx: Ctx, input: DraftOrderCreate): Promise<DraftOrder> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    const customer = input.customer_id != null ? await customerFor(ctx, tx, input.customer_id) : null;
    const terms = input.payment_terms ?? 'due_on_receipt';
    const now = new Date();
    const draft = {
      id: newId('dord_'),
      projectId: ctx.project.id,
      draftNumber: await nextNumber(tx, ctx.project.id, 'draft_number', 1),
      status: 'open',
      customerId: customer?.id ?? null,
      customerEmail: input.customer_email ?? customer?.email ?? null,
      subtotal: 0n,
      tax: 0n,
      taxData: null,
      taxInclusive: false,
      shippingCost: 0n,
      discount: 0n,
      manualDiscount: 0n,
      discountCodes: [],
      discountApplications: [],
      total: 0n,
      currency: input.currency,
      shippingAddress: toStoredAddress(input.shipping_address),
      billingAddress: toStoredAddress(input.billing_address),
      paymentTerms: terms,
      paymentDueDate: paymentDueDate(terms, now),
      orderId: null,
      completedAt: null,
      itemCount: 0,
      notes: input.notes ?? null,
      metadata: (input.metadata ?? {}) as Prisma.JsonValue,
      createdAt: now,
      updatedAt: now,
    } satisfies DraftOrder;
    const { taxData, shippingAddress, billingAddress, metadata, discountApplications, ...columns } = withTotals(
      ctx,
      draft,
      [],
    );
    const created = await tx.draftOrder.create({
      data: {
        ...columns,
        discountApplications: discountApplications as Prisma.InputJsonValue,
        taxData: jsonColumn(taxData),
        shippingAddress: jsonColumn(shippingAddress),
        billingAddress: jsonColumn(billingAddress),
        metadata: metadata as Prisma.InputJsonValue,
      },
    });
    await recordEvent(tx, ctx, {
      type: 'draft_order.created',
      resourceType: 'draft_order',
      resourceId: created.id,
      summary: `Draft order #${created.draftNumber} created`,
      payload: toDraftOrderResource(created),
    });
    return created;
  });
}

/**
 * Applies the fields sent to an open or sent draft and recomputes its totals in the same transaction;
 * records draft_order.updated with the changes (nothing when nothing changed). `tax` counts only while
 * tax calculation is disabled; `currency` changes only while the draft has no items. A changed customer
 * re-prices every variant item for the new customer's price lists (the base price without a customer).
 */
export async function updateDraftOrder(ctx: Ctx, id: string, input: DraftOrderUpdate): Promise<DraftOrder> {
  return writeTx(ctx, {}, async (tx) => {
    checkCurrencyCode(input.currency);
    const before = await draftForChange(ctx, tx, id);
    if (input.currency !== undefined && input.currency !== before.currency && before.itemCount > 0) {
      throw invalidField(
        'currency',
        'The currency can change only while the draft order has no line items. Remove them first.',
      );
    }
    const customer = input.customer_id != null ? await customerFor(ctx, tx, input.customer_id) : null;
    const terms = (input.payment_terms ?? before.paymentTerms) as PaymentTerms;
    const proposed: DraftOrder = {
      ...before,
      customerId: input.customer_id === undefined ? before.customerId : (customer?.id ?? null),
      customerEmail:
        input.customer_email !== undefined ? input.customer_email : customer ? customer.email : before.customerEmail,
      shippingAddress:
        input.shipping_address === undefined ? before.shippingAddress : toStoredAddress(input.shipping_address),
      billingAddress:
        input.billing_address === undefined ? before.billingAddress : toStoredAddress(input.billing_address),
      notes: input.notes === undefined ? before.notes : input.notes,
      currency: input.currency ?? before.currency,
      tax: input.tax === undefined ? before.tax : BigInt(input.tax),
      shippingCost: input.shipping_cost === undefined ? before.shippingCost : BigInt(input.shipping_cost),
      manualDiscount: input.discount === undefined ? before.manualDiscount : BigInt(input.discount),
      paymentTerms: terms,
      paymentDueDate: terms === before.paymentTerms ? before.paymentDueDate : paymentDueDate(terms, new Date()),
      metadata: input.metadata === undefined ? before.metadata : input.metadata,
    };
    const items = await itemsOf(tx, id);
    if (proposed.customerId === before.customerId)
      return saveDraft(tx, ctx, before, await totalled(ctx, tx, proposed, items));
    // Another customer buys from other price lists: every variant item is priced again for it.
    const repriced = await repriceItems(ctx, tx, proposed, items);
    await savePrices(tx, items, repriced);
    return saveDraft(tx, ctx, before, await totalled(ctx, tx, proposed, repriced), {
      changes: itemChanges(items, repriced),
    });
  });
}

/** Deletes an open or sent draft with its items, releasing its reserved units, and records draft_order.deleted; a completed draft is 400. */
export async function deleteDraftOrder(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const draft = await findDraftOrder(ctx, tx, id, true);
    if (draft.status === 'completed')
      throw new AppError('invalid_request', 'A completed draft order cannot be deleted.');
    await releaseReservations(tx, ctx, draft, 'deleted');
    await tx.draftOrder.delete({ where: { id } });
    await recordEvent(tx, ctx, {
      type: 'draft_order.deleted',
      resourceType: 'draft_order',
      resourceId: id,
      summary: `Draft order #${draft.draftNumber} deleted`,
      payload: toDraftOrderResource(draft),
    });
  });
}
