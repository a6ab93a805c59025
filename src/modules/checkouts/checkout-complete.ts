import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Checkout, CheckoutLine, Order, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { emailLanguage } from '../../shared/email-language.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { jsonColumn } from '../../shared/json-column.js';
import { paymentDueDate } from '../../shared/payment-terms.js';
import { writeTx } from '../../shared/write.js';
import { deductStock, holdStock, releaseCheckoutHold, type StockAllocation } from '../inventory/index.js';
import {
  createOrder,
  markOrderPaid,
  type NewOrder,
  type OrderLineItemResource,
  type OrderPaymentResource,
} from '../orders/index.js';
import { completeDraftIn } from '../draft-orders/index.js';
import { paymentProviderOf, paymentsBusy, type PaymentOutcome, type ProviderName } from '../payments/index.js';
import type { KeyedLimiter } from '../../shared/keyed-limiter.js';
import { recordEmail } from '../platform/index.js';
import type { CarrierAccess } from '../shipping/index.js';
import { awaitsAction, findCheckout, type CheckoutKey } from './checkout-access.js';
import { lockDraftVariants } from './checkout-from-draft.js';
import { isLapsedStep, LapsedMeanwhile, payableUnderLock, requireOrderable } from './checkout-payable.js';
import { creditForCompletion, holdCredit, settleCredit } from './checkout-store-credit.js';
import { linesOf, ratesFor, reopenIfLapsed, type CheckoutWithLines } from './checkouts.service.js';
import {
  recordCheckoutRedemptions,
  redeemCheckoutDiscounts,
  returnCheckoutUses,
} from './checkout-discounts.service.js';
import { renderOrderConfirmation } from './order-confirmation.email.js';
import { lineDiscounts, type DiscountApplicationResource } from '../discounts/index.js';

type CheckoutComplete = components['schemas']['CheckoutComplete'];

/**
 * What completing needs of the process: whether e-mail is sent (SMTP), where the stripe provider's SDK calls, and
 * the places for payments through a provider outside the database (absent: unlimited).
 */
export interface CompletionOptions {
  smtp: boolean;
  stripeApiBase?: string;
  paymentSlots?: KeyedLimiter;
}

/** What completing answers: the order (201), or the checkout whose payment waits for another step (202). */
export type Completion = { order: Order } | { pending: CheckoutWithLines };

/** The order of a completed checkout. */
const orderOf = (ctx: Ctx, db: Ctx['db'] | Tx, checkout: Checkout) =>
  db.order.findFirstOrThrow({ where: { id: checkout.orderId!, projectId: ctx.project.id } });

/**
 * Pays for the checkout through the project's provider and creates its order (openapi.yaml, completeCheckout), all
 * in one transaction under the checkout's lock, so two completions of one checkout make one order and one payment:
 * the second waits and answers the first's order. The units are held first (409 out_of_stock when short, nothing
 * paid); a declined payment answers 402 and rolls the hold back; a payment that needs another step keeps the hold
 * for the project's checkout_reservation_minutes and answers the checkout; a payment taken (or left pending by
 * `manual`) turns the hold into the order's deduction. Through Stripe, the transaction first takes a place among the
 * process's payment places (payments/payment-slots.ts): 503 when none frees within 5 s, nothing charged.
 */
export async function completeCheckout(
  ctx: Ctx,
  key: CheckoutKey,
  input: CheckoutComplete | undefined,
  carriers: CarrierAccess,
  options: CompletionOptions,
): Promise<Completion> {
  const seen = await findCheckout(ctx, ctx.db, key);
  if (seen.status === 'completed') return { order: await orderOf(ctx, ctx.db, seen) };
  // A draft's checkout is what the merchant set (the draft's completion checks it): no rate to choose.
  if (!seen.draftOrderId) {
    requireOrderable(seen);
    // Looked up before the lock (a carrier may take seconds): a zone that has rates wants one chosen.
    if (!seen.shippingRate && (await ratesFor(ctx, seen, await linesOf(ctx.db, seen.id), carriers)).length > 0) {
      throw invalidField(
        'shipping_rate_id',
        'Choose a shipping rate (shipping_rate_id) before completing the checkout.',
      );
    }
  }
  // A lapsed payment step is opened again first, in a transaction of its own (LapsedMeanwhile says why).
  const reopenLapsed = () =>
    writeTx(ctx, {}, async (tx) => reopenIfLapsed(tx, ctx, await findCheckout(ctx, tx, key, true)));
  if (isLapsedStep(seen)) await reopenLapsed();
  const attempt = () => writeTx(ctx, {}, (tx) => completeLocked(tx, ctx, key, seen, input, options));
  const complete = () =>
    attempt().catch(async (error: unknown) => {
      if (!(error instanceof LapsedMeanwhile)) throw error;
      await reopenLapsed();
      return attempt();
    });
  // Stripe is called inside that transaction: the completion first takes one of the process's payment places.
  const slots = ctx.project.paymentProvider === 'stripe' ? options.paymentSlots : undefined;
  return slots ? slots.run(ctx.project.id, complete, paymentsBusy) : complete();
}

/**
 * completeCheckout's transaction: under the checkout's lock, the payment and the order (or the payment step). `seen`
 * is the checkout as its shipping rate was checked before the lock.
 */
async function completeLocked(
  tx: Tx,
  ctx: Ctx,
  key: CheckoutKey,
  seen: Checkout,
  input: CheckoutComplete | undefined,
  options: CompletionOptions,
): Promise<Completion> {
  let checkout = await findCheckout(ctx, tx, key, true);
  if (checkout.status === 'completed') return { order: await orderOf(ctx, tx, checkout) };
  const lines = await linesOf(tx, checkout.id);
  // A draft stays locked until commit: completed, deleted or changed meanwhile, it answers 409.
  const draft = await payableUnderLock(tx, ctx, checkout, seen, lines);
  // Reductions priced again and code uses counted before anything is held or charged (409 usage_limit_reached).
  checkout = await redeemCheckoutDiscounts(ctx, tx, checkout, lines);
  if (draft) await lockDraftVariants(tx, ctx, draft.items);
  const provider = paymentProviderOf(ctx.project, { apiBase: options.stripeApiBase });
  let outcome: PaymentOutcome;
  let until: Date;
  // Store credit spent by this call (a payment step's credit was spent when the step started).
  let credit = 0n;
  if (awaitsAction(checkout)) {
    until = checkout.reservedUntil!;
    outcome = await provider.confirmPayment(checkout.paymentReference!);
  } else {
    until = new Date(Date.now() + ctx.project.checkoutReservationMinutes * 60_000);
    // A draft's units are held by its own reservation (sendDraftOrder) and taken by its completion.
    if (!checkout.draftOrderId)
      await holdStock(tx, ctx, { checkoutId: checkout.id }, demandsOf(lines), until, 'in the checkout', 'out_of_stock');
    credit = await creditForCompletion(tx, ctx, checkout, input?.store_credit);
    const due = checkout.total - credit;
    outcome =
      due === 0n
        ? PAID_WITH_CREDIT
        : await provider.createPayment({
            amount: Number(due),
            currency: checkout.currency,
            token: input?.payment?.token,
            paymentMethod: input?.payment?.payment_method,
            checkoutId: checkout.id,
            projectId: ctx.project.id,
            attempt: String(until.getTime()),
          });
  }
  if (outcome.status === 'declined') {
    const what =
      provider.name === 'stripe'
        ? `Stripe PaymentIntent ${outcome.reference ?? ''}`.trim()
        : `test token ${input?.payment?.token}`;
    throw new AppError(
      'payment_declined',
      `The payment was declined${input?.payment?.token || provider.name === 'stripe' ? ` (${what})` : ''}. Nothing was charged.`,
      { field: provider.name === 'stripe' ? 'payment.payment_method' : 'payment.token' },
    );
  }
  if (outcome.status === 'requires_action') {
    await returnCheckoutUses(ctx, tx, checkout);
    const pending = await tx.checkout.update({
      where: { id: checkout.id },
      data: {
        status: 'requires_action',
        paymentProvider: provider.name,
        paymentStatus: 'requires_action',
        paymentReference: outcome.reference,
        paymentClientSecret: outcome.clientSecret ?? null,
        reservedUntil: until,
        // A step confirmed again and still waiting keeps the credit it holds.
        ...(awaitsAction(checkout) ? {} : await holdCredit(tx, ctx, checkout, credit, until)),
        updatedAt: new Date(),
      },
    });
    // Once the hold ends: the step is ended and its PaymentIntent cancelled, unless the checkout became an order.
    if (provider.name === 'stripe' && outcome.reference && !awaitsAction(checkout)) {
      await ctx.jobs.enqueue(
        tx,
        'cancel-checkout-payment',
        { v: 1, projectId: ctx.project.id, checkoutId: checkout.id, reference: outcome.reference },
        { startAfter: until },
      );
    }
    return { pending: { checkout: pending, lines } };
  }
  const payment = { provider: provider.name, outcome, storeCredit: credit };
  return { order: await placeOrder(tx, ctx, checkout, lines, payment, options) };
}

/** The outcome of a total paid in full with store credit: no provider is called. */
const PAID_WITH_CREDIT: PaymentOutcome = { status: 'succeeded', reference: null };

/** The stock a checkout's lines take. */
const demandsOf = (lines: CheckoutLine[]) =>
  lines.map((line) => ({
    variantId: line.variantId,
    quantity: line.quantity,
    label: `${line.title} - ${line.variantTitle}`,
  }));

/**
 * The checkout's order, in the caller's transaction: its held units released and deducted (the variants stay locked,
 * so nobody takes them in between), the order created as every completion creates it (createOrder: number,
 * customer figures, order.created) with the payment recorded, marked paid when the payment succeeded (order.paid,
 * total_spent), the checkout completed and linked, and the confirmation e-mail written to the outbox. A checkout
 * paying a draft (draft_order_id) instead completes the draft (completeDraftIn: its reservation, stock, order,
 * order.created, draft_order.completed), its order created carrying the checkout and the payment.
 */
export async function placeOrder(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  lines: CheckoutLine[],
  payment: { provider: ProviderName; outcome: PaymentOutcome; storeCredit?: bigint },
  options: CompletionOptions,
): Promise<Order> {
  const planned = { id: newId('ord_'), at: new Date() };
  const paid = payment.outcome.status === 'succeeded';
  const record: OrderPaymentResource = {
    provider: payment.provider,
    status: paid ? 'succeeded' : 'pending',
    amount: Number(checkout.total),
    currency: checkout.currency,
    reference: payment.outcome.reference,
    created_at: planned.at.toISOString(),
  };
  // The store credit part (spent now, or held by the payment step) first; the provider's record holds the rest.
  const paymentsOf = async (orderId: string): Promise<OrderPaymentResource[]> => {
    const credit = await settleCredit(tx, ctx, checkout, payment.storeCredit ?? 0n, { id: orderId, at: planned.at });
    if (!credit) return [record];
    const rest = record.amount - credit.amount;
    return rest > 0 ? [credit, { ...record, amount: rest }] : [credit];
  };
  let order: Order;
  if (checkout.draftOrderId) {
    // The draft's own completion (its reservation, stock, number, events), its order created carrying the checkout
    // and the payments (store credit first), so order.created's payload shows them. Its code uses were counted
    // before the payment (redeemCheckoutDiscounts).
    order = await completeDraftIn(tx, ctx, checkout.draftOrderId, {
      planned,
      checkoutId: checkout.id,
      payments: await paymentsOf(planned.id),
    }).catch(asOutOfStock);
  } else {
    await releaseCheckoutHold(tx, checkout.id);
    const allocations = await deductStock(tx, ctx, demandsOf(lines)).catch(asOutOfStock);
    order = await createOrder(tx, ctx, orderOfCheckout(ctx, checkout, lines, allocations, planned), {
      checkoutId: checkout.id,
      payments: await paymentsOf(planned.id),
      summary: (orderNumber) => `Order #${orderNumber} created from a storefront checkout`,
    });
  }
  if (paid) order = await markOrderPaid(tx, ctx, order);
  await tx.checkout.update({
    where: { id: checkout.id },
    data: {
      status: 'completed',
      orderId: order.id,
      completedAt: planned.at,
      paymentProvider: payment.provider,
      paymentStatus: record.status,
      paymentReference: payment.outcome.reference,
      paymentClientSecret: null,
      reservedUntil: null,
      updatedAt: planned.at,
    },
  });
  await recordCheckoutRedemptions(ctx, tx, checkout, order.id);
  await emailConfirmation(tx, ctx, order, options);
  return order;
}

/** A variant short of stock as the checkout's completion names it (409 out_of_stock). */
const asOutOfStock = (error: unknown): never => {
  throw error instanceof AppError && error.code === 'conflict'
    ? new AppError('out_of_stock', error.message, { field: error.options.field })
    : error;
};

/** The order of `checkout` as created (all but its number): copies of the lines, amounts and addresses, due on receipt. */
function orderOfCheckout(
  ctx: Ctx,
  checkout: Checkout,
  lines: CheckoutLine[],
  allocations: StockAllocation[],
  planned: { id: string; at: Date },
): NewOrder {
  return {
    id: planned.id,
    projectId: ctx.project.id,
    customerId: checkout.customerId,
    email: checkout.email!,
    currency: checkout.currency,
    lineItems: orderLinesOf(checkout, lines),
    discountApplications: checkout.discountApplications as Prisma.InputJsonValue,
    subtotal: checkout.subtotal,
    tax: checkout.tax,
    taxData: jsonColumn(checkout.taxData),
    shippingCost: checkout.shippingCost,
    discount: checkout.discount,
    total: checkout.total,
    shippingAddress: jsonColumn(checkout.shippingAddress),
    billingAddress: jsonColumn(checkout.billingAddress),
    paymentTerms: 'due_on_receipt',
    paymentDueDate: paymentDueDate('due_on_receipt', planned.at),
    draftOrderId: null,
    stockAllocations: allocations as unknown as Prisma.InputJsonValue,
    createdAt: planned.at,
  };
}

/** The checkout's lines as the order keeps them, each with its part of the reductions when it has one. */
function orderLinesOf(checkout: Checkout, lines: CheckoutLine[]): OrderLineItemResource[] {
  const discounts = lineDiscounts(checkout.discountApplications as DiscountApplicationResource[], lines.length);
  return lines.map((line, i) => ({ ...toOrderLineItem(line), ...(discounts[i] > 0 && { discount: discounts[i] }) }));
}

/** A checkout line as the order keeps it (a copy that never changes), with its stable id. */
function toOrderLineItem(line: CheckoutLine): OrderLineItemResource {
  const unitPrice = Number(line.unitPrice);
  return {
    id: newId('oli_'),
    variant_id: line.variantId,
    product_id: line.productId,
    title: line.title,
    variant_title: line.variantTitle,
    sku: line.sku,
    quantity: line.quantity,
    unit_price: unitPrice,
    total: line.quantity * unitPrice,
  };
}

/** Writes the order confirmation to the order's e-mail in the customer's language, and with `smtp` enqueues its delivery. */
async function emailConfirmation(tx: Tx, ctx: Ctx, order: Order, options: CompletionOptions): Promise<void> {
  const customer = order.customerId
    ? await tx.customer.findUnique({ where: { id: order.customerId }, select: { locale: true } })
    : null;
  const language = emailLanguage(customer?.locale, ctx.project.locale);
  const items = order.lineItems as OrderLineItemResource[];
  const rendered = renderOrderConfirmation({
    language,
    storeName: ctx.project.name,
    orderNumber: order.orderNumber,
    currency: order.currency,
    total: Number(order.total),
    discount: Number(order.discount),
    items: items.map((item) => ({ title: item.title, variantTitle: item.variant_title, quantity: item.quantity })),
  });
  const email = await recordEmail(tx, ctx.project.id, {
    to: [order.email],
    ...rendered,
    template: 'order_confirmation',
    data: { order_id: order.id, order_number: order.orderNumber, checkout_id: order.checkoutId },
    locale: language,
  });
  if (options.smtp) await ctx.jobs.enqueue(tx, 'send-email', { v: 1, emailId: email.id });
}
