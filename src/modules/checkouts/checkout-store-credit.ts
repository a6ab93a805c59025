import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Checkout } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { releaseCheckoutHold } from '../inventory/index.js';
import type { OrderPaymentResource } from '../orders/index.js';
import { attachCreditToOrder, creditToSpend, reverseHeldCredit, spendStoreCredit } from '../store-credit/index.js';

type StoreCreditInput = components['schemas']['CheckoutComplete']['store_credit'];

/** Whether the request may spend the checkout customer's credit: that customer signed in, or the merchant's secret key. */
const maySpend = (ctx: Ctx, checkout: Checkout) =>
  checkout.customerId !== null &&
  ((ctx.actor.kind === 'customer' && ctx.actor.id === checkout.customerId) ||
    (ctx.actor.kind === 'api_key' && ctx.actor.keyType === 'secret'));

/**
 * The store credit a completion spends (0 without `store_credit`), the customer's account locked until the
 * transaction ends (openapi.yaml, completeCheckout); 400 on `store_credit` when the request may not spend it.
 */
export async function creditForCompletion(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  input: StoreCreditInput,
): Promise<bigint> {
  if (!input) return 0n;
  if (!maySpend(ctx, checkout)) {
    throw invalidField(
      'store_credit',
      checkout.customerId
        ? "Only the checkout's customer, signed in (their access token), can pay with their store credit."
        : 'This checkout has no customer: create it signed in (an access token) to pay with store credit.',
    );
  }
  return creditToSpend(tx, ctx, {
    customerId: checkout.customerId!,
    currency: checkout.currency,
    total: checkout.total,
    amount: input.amount,
  });
}

/**
 * Spends `amount` for a payment step (a `payment` entry of the checkout) until `until`, when the release-checkout-credit
 * job gives it back unless the order was placed: the checkout's columns that hold it.
 */
export async function holdCredit(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  amount: bigint,
  until: Date,
): Promise<Pick<Checkout, 'storeCreditAmount' | 'storeCreditEntryId'>> {
  if (amount === 0n) return { storeCreditAmount: 0n, storeCreditEntryId: null };
  await ctx.jobs.enqueue(
    tx,
    'release-checkout-credit',
    { v: 1, projectId: ctx.project.id, checkoutId: checkout.id },
    { startAfter: until },
  );
  const entry = await spendStoreCredit(tx, ctx, {
    customerId: checkout.customerId!,
    amount,
    checkoutId: checkout.id,
    orderId: null,
  });
  return { storeCreditAmount: amount, storeCreditEntryId: entry.id };
}

/**
 * The store credit payment of the order being placed for `checkout`: the credit its payment step held, linked to the
 * order, or `amount` spent now; null when the order is not paid with store credit.
 */
export async function settleCredit(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  amount: bigint,
  order: { id: string; at: Date },
): Promise<OrderPaymentResource | null> {
  let entry;
  if (checkout.storeCreditEntryId) entry = await attachCreditToOrder(tx, checkout.storeCreditEntryId, order.id);
  else if (amount > 0n) {
    entry = await spendStoreCredit(tx, ctx, {
      customerId: checkout.customerId!,
      amount,
      checkoutId: checkout.id,
      orderId: order.id,
    });
  } else return null;
  return {
    provider: 'store_credit',
    status: 'succeeded',
    amount: Number(-entry.amount),
    currency: checkout.currency,
    reference: entry.id,
    created_at: order.at.toISOString(),
  };
}

/** Ends a payment step that lapsed or failed: its held units and its held store credit are let go. */
export async function releasePaymentStep(tx: Tx, ctx: Ctx, checkout: Checkout): Promise<void> {
  await releaseCheckoutHold(tx, checkout.id);
  if (checkout.storeCreditEntryId) await reverseHeldCredit(tx, ctx, checkout.storeCreditEntryId);
}
