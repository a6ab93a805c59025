import type { Checkout, CheckoutLine, DraftLineItem, DraftOrder, Prisma } from '../../generated/prisma/client.js';
import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { payableDraft } from '../draft-orders/index.js';
import { lockVariants } from '../inventory/index.js';
import { newClientSecret } from './checkout-access.js';
import { CHECKOUT_LIFETIME_MS, checkoutColumns } from './checkout-pricing.js';
import type { CheckoutWithLines } from './checkouts.service.js';
import { NO_PAYMENT } from './checkouts.service.js';

/**
 * Opens a checkout of the sent draft a pay token names (openapi.yaml, createCheckoutFromDraft): the draft's lines at
 * the draft's prices, its e-mail, customer, addresses and amounts (shipping as the merchant set it), linked by
 * draft_order_id so that it cannot be changed and its completion completes the draft. 404 for a token that is not
 * the project's; 409 draft_order_completed for a draft that cannot be paid. Answers its client secret once.
 */
export async function createCheckoutFromDraft(
  ctx: Ctx,
  token: string,
): Promise<CheckoutWithLines & { clientSecret: string }> {
  return writeTx(ctx, {}, async (tx) => {
    const { draft, items } = await payableDraft(ctx, tx, token);
    const { secret, hash } = newClientSecret();
    const now = new Date();
    const checkout: Checkout = {
      id: newId('chk_'),
      projectId: ctx.project.id,
      secretHash: hash,
      status: 'open',
      customerId: draft.customerId,
      email: draft.customerEmail,
      currency: draft.currency,
      shippingAddress: draft.shippingAddress,
      billingAddress: draft.billingAddress,
      shippingRate: null,
      note: null,
      subtotal: draft.subtotal,
      tax: draft.tax,
      taxData: draft.taxData,
      taxInclusive: draft.taxInclusive,
      shippingCost: draft.shippingCost,
      discount: draft.discount,
      total: draft.total,
      // Shown as the draft has them; the draft's completion counts their uses (completeDraftIn).
      discountCodes: draft.discountCodes,
      discountApplications: draft.discountApplications,
      lineCount: items.length,
      ...NO_PAYMENT,
      orderId: null,
      completedAt: null,
      draftOrderId: draft.id,
      expiresAt: new Date(now.getTime() + CHECKOUT_LIFETIME_MS),
      createdAt: now,
      updatedAt: now,
    };
    // payableDraft refuses custom items, so every item names its product and variant.
    const lines: CheckoutLine[] = items.map((item, position) => ({
      id: newId('chkl_'),
      checkoutId: checkout.id,
      productId: item.productId!,
      variantId: item.variantId!,
      title: item.title,
      variantTitle: item.variantTitle,
      sku: item.sku,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      basePrice: item.basePrice ?? item.unitPrice,
      priceListId: item.priceListId,
      position,
      createdAt: now,
    }));
    await tx.checkout.create({
      data: {
        ...(checkoutColumns(checkout) as Prisma.CheckoutUncheckedCreateInput),
        id: checkout.id,
        projectId: checkout.projectId,
        secretHash: checkout.secretHash,
        customerId: checkout.customerId,
        currency: checkout.currency,
        draftOrderId: checkout.draftOrderId,
        createdAt: now,
      },
    });
    await tx.checkoutLine.createMany({ data: lines });
    return { checkout, lines, clientSecret: secret };
  });
}

/**
 * 409 conflict unless the draft, locked for its payment, still asks what its checkout was opened with (amounts,
 * currency, customer, e-mail, addresses, lines): the shopper pays what the checkout shows, and the order is the draft's, so a
 * draft the merchant changed since is paid through a new checkout of its link.
 */
export function requireDraftAsOpened(
  checkout: Checkout,
  lines: CheckoutLine[],
  { draft, items }: { draft: DraftOrder; items: DraftLineItem[] },
): void {
  const lineOf = (line: Pick<CheckoutLine, 'variantId' | 'quantity' | 'unitPrice'>) =>
    `${line.variantId}:${line.quantity}:${line.unitPrice}`;
  const same =
    draft.total === checkout.total &&
    draft.subtotal === checkout.subtotal &&
    draft.shippingCost === checkout.shippingCost &&
    draft.discount === checkout.discount &&
    draft.tax === checkout.tax &&
    draft.currency === checkout.currency &&
    draft.customerId === checkout.customerId &&
    draft.customerEmail === checkout.email &&
    JSON.stringify(draft.shippingAddress) === JSON.stringify(checkout.shippingAddress) &&
    JSON.stringify(draft.billingAddress) === JSON.stringify(checkout.billingAddress) &&
    JSON.stringify(items.map((item) => lineOf({ ...item, variantId: item.variantId ?? '' }))) ===
      JSON.stringify(lines.map(lineOf));
  if (!same) {
    throw new AppError(
      'conflict',
      `Draft order #${draft.draftNumber} changed after this checkout was opened (its total is now ${draft.total} ` +
        `${draft.currency} minor units). Open its payment link again to pay what it asks now. Nothing was charged.`,
    );
  }
}

/**
 * Locks the variants of the draft's items: after its codes' rows and before the customer's store credit account,
 * the order every writer takes them in (a draft's completion locks them only after its payments' credit is spent).
 */
export const lockDraftVariants = (tx: Tx, ctx: Ctx, items: DraftLineItem[]) =>
  lockVariants(
    tx,
    ctx.project.id,
    items.flatMap((item) => (item.variantId ? [item.variantId] : [])),
  );
