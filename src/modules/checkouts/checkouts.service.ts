import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Checkout, CheckoutLine, Prisma } from '../../generated/prisma/client.js';
import { systemCtx, type Ctx } from '../../shared/context.js';
import type { JobDeps } from '../../shared/job-definition.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { toStoredAddress } from '../draft-orders/index.js';
import { lookupRates, type AvailableRate, type CarrierAccess } from '../shipping/index.js';
import { findCheckout, newClientSecret, requireChangeable, type CheckoutKey } from './checkout-access.js';
import { releasePaymentStep } from './checkout-store-credit.js';
import { newLines } from './checkout-line-input.js';
import { checkoutColumns, priceLines, totalled, totalledWithCodes, withTotals } from './checkout-pricing.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';

type CheckoutCreate = components['schemas']['CheckoutCreate'];
type CheckoutUpdate = components['schemas']['CheckoutUpdate'];

/** A checkout with its lines by position. */
export interface CheckoutWithLines {
  checkout: Checkout;
  lines: CheckoutLine[];
}

/** The checkout's lines in the order they were added. */
export const linesOf = (db: Ctx['db'] | Tx, checkoutId: string): Promise<CheckoutLine[]> =>
  db.checkoutLine.findMany({ where: { checkoutId }, orderBy: { position: 'asc' } });

/**
 * Creates an open checkout for the request's shopper (the signed-in customer when a token was sent: their checkout,
 * their e-mail by default, their prices) with its lines priced and totalled (with the discount codes sent, each
 * checked as applying one is), and answers it with its client secret, of which only a digest is stored.
 */
export async function createCheckout(
  ctx: Ctx,
  input: CheckoutCreate,
): Promise<CheckoutWithLines & { clientSecret: string }> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    const customerId = ctx.actor.kind === 'customer' ? ctx.actor.id : null;
    const customer = customerId
      ? await tx.customer.findFirst({ where: { id: customerId, projectId: ctx.project.id }, select: { email: true } })
      : null;
    const { secret, hash } = newClientSecret();
    const now = new Date();
    const blank: Checkout = {
      id: newId('chk_'),
      projectId: ctx.project.id,
      secretHash: hash,
      status: 'open',
      customerId,
      email: input.email ?? customer?.email ?? null,
      currency: input.currency,
      shippingAddress: toStoredAddress(input.shipping_address),
      billingAddress: toStoredAddress(input.billing_address),
      shippingRate: null,
      note: input.note ?? null,
      subtotal: 0n,
      tax: 0n,
      taxData: null,
      taxInclusive: false,
      shippingCost: 0n,
      discount: 0n,
      total: 0n,
      discountCodes: [],
      discountApplications: [],
      lineCount: 0,
      ...NO_PAYMENT,
      orderId: null,
      completedAt: null,
      draftOrderId: null,
      expiresAt: now,
      createdAt: now,
      updatedAt: now,
    };
    const lines = await priceLines(ctx, tx, blank, await newLines(ctx, tx, blank, [], input.lines ?? []));
    const checkout = await totalledWithCodes(ctx, tx, blank, lines, input.discount_codes ?? []);
    const { projectId, id, secretHash, customerId: owner, currency, createdAt } = checkout;
    await tx.checkout.create({
      data: {
        ...(checkoutColumns(checkout) as Prisma.CheckoutUncheckedCreateInput),
        id,
        projectId,
        secretHash,
        customerId: owner,
        currency,
        createdAt,
      },
    });
    await tx.checkoutLine.createMany({ data: lines });
    return { checkout, lines, clientSecret: secret };
  });
}

/** The checkout the request may reach, with its lines. */
export async function getCheckout(ctx: Ctx, key: CheckoutKey): Promise<CheckoutWithLines> {
  const checkout = await findCheckout(ctx, ctx.db, key);
  return { checkout, lines: await linesOf(ctx.db, checkout.id) };
}

/**
 * Locks the checkout for a change (400 completed, 409 while its payment waits for another step); a payment step
 * whose hold lapsed is ended first (its units were already free; its rows go), so the checkout is open again.
 */
export async function checkoutForChange(ctx: Ctx, tx: Tx, key: CheckoutKey): Promise<Checkout> {
  const checkout = await reopenIfLapsed(tx, ctx, await findCheckout(ctx, tx, key, true));
  requireChangeable(checkout);
  return checkout;
}

/** A checkout's payment columns with no payment under way (a new checkout, one reopened). */
export const NO_PAYMENT = {
  paymentProvider: null,
  paymentStatus: null,
  paymentReference: null,
  paymentClientSecret: null,
  reservedUntil: null,
  storeCreditAmount: 0n,
  storeCreditEntryId: null,
} as const;

/**
 * The checkout open again, as stored, when its payment step's hold lapsed (rows released, held store credit given
 * back, so never twice); unchanged otherwise. `updated_at` stays: the shopper changed nothing.
 */
export async function reopenIfLapsed(tx: Tx, ctx: Ctx, checkout: Checkout): Promise<Checkout> {
  if (checkout.status !== 'requires_action' || (checkout.reservedUntil && checkout.reservedUntil > new Date()))
    return checkout;
  await releasePaymentStep(tx, ctx, checkout);
  return tx.checkout.update({
    where: { id: checkout.id },
    data: { status: 'open', ...NO_PAYMENT, updatedAt: checkout.updatedAt },
  });
}

/** The checkout open again with its held units and held store credit released, and no payment under way. */
export async function reopenCheckout(tx: Tx, ctx: Ctx, checkout: Checkout): Promise<void> {
  await releasePaymentStep(tx, ctx, checkout);
  await tx.checkout.update({
    where: { id: checkout.id },
    data: { status: 'open', ...NO_PAYMENT, updatedAt: new Date() },
  });
}

/**
 * Reopens a checkout whose payment step lapsed while it held store credit, so the credit comes back on time even when
 * nobody touches the checkout again (the release-checkout-credit job, enqueued for the step's end).
 */
export async function reopenLapsedCheckout(deps: JobDeps, projectId: string, checkoutId: string): Promise<boolean> {
  const project = await deps.db.project.findUnique({ where: { id: projectId } });
  if (!project) return false;
  const ctx = systemCtx(deps, project, 'release-checkout-credit');
  return writeTx(ctx, {}, async (tx) => {
    await tx.$queryRaw`SELECT id FROM checkouts WHERE id = ${checkoutId} AND project_id = ${projectId} FOR UPDATE`;
    const checkout = await tx.checkout.findFirst({ where: { id: checkoutId, projectId } });
    if (!checkout) return false;
    return (await reopenIfLapsed(tx, ctx, checkout)) !== checkout;
  });
}

/** Stores the checkout's changeable columns and answers it as stored. */
export function saveCheckout(tx: Tx, checkout: Checkout): Promise<Checkout> {
  return tx.checkout.update({ where: { id: checkout.id }, data: checkoutColumns(checkout) });
}

/** The checkout with no shipping rate chosen (the lines or the address changed: the rates may differ). */
export const withoutRate = (checkout: Checkout): Checkout => ({ ...checkout, shippingRate: null, shippingCost: 0n });

/**
 * The rates the rate lookup answers for the checkout's shipping address, currency, subtotal and line weights
 * (none without an address).
 */
export async function ratesFor(
  ctx: Ctx,
  checkout: Checkout,
  lines: CheckoutLine[],
  carriers: CarrierAccess,
): Promise<AvailableRate[]> {
  const address = checkout.shippingAddress as {
    country: string;
    state: string | null;
    postal_code: string | null;
  } | null;
  if (!address) return [];
  const weights = new Map(
    (
      await ctx.db.variant.findMany({
        where: { id: { in: lines.map((line) => line.variantId) }, projectId: ctx.project.id },
        select: { id: true, weight: true },
      })
    ).map((variant) => [variant.id, variant.weight]),
  );
  return lookupRates(
    ctx,
    {
      country: address.country,
      ...(address.state !== null && { state: address.state }),
      ...(address.postal_code !== null && { postal_code: address.postal_code }),
      subtotal: Number(checkout.subtotal),
      currency: checkout.currency,
      items: lines.map((line) => ({ weight_grams: weights.get(line.variantId) ?? 0, quantity: line.quantity })),
    },
    carriers,
  );
}

/** The rates available to the checkout the request may reach. */
export async function checkoutRates(ctx: Ctx, key: CheckoutKey, carriers: CarrierAccess): Promise<AvailableRate[]> {
  const { checkout, lines } = await getCheckout(ctx, key);
  return ratesFor(ctx, checkout, lines, carriers);
}

/** The checkout as `input` changes it (before totals): null clears a field; a new shipping address clears the rate. */
function applied(checkout: Checkout, input: CheckoutUpdate): Checkout {
  let next: Checkout = {
    ...checkout,
    email: input.email === undefined ? checkout.email : input.email,
    note: input.note === undefined ? checkout.note : input.note,
    billingAddress:
      input.billing_address === undefined ? checkout.billingAddress : toStoredAddress(input.billing_address),
  };
  if (input.shipping_address !== undefined) {
    next = withoutRate({ ...next, shippingAddress: toStoredAddress(input.shipping_address) });
  }
  if (input.shipping_rate_id === null) next = withoutRate(next);
  return next;
}

/** Whether two states of a checkout show the same fields (all but updated_at and the expiry a write moves). */
const sameState = (a: Checkout, b: Checkout) =>
  JSON.stringify({ ...a, updatedAt: 0, expiresAt: 0 }, bigints) ===
  JSON.stringify({ ...b, updatedAt: 0, expiresAt: 0 }, bigints);
const bigints = (_: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * Changes e-mail, addresses, note and the chosen shipping rate, then recomputes the totals. A rate is looked up
 * before the checkout is locked (a carrier may take seconds) for the checkout as the change leaves it; should the
 * checkout change meanwhile, the answer is 409 and the client sends the change again.
 */
export async function updateCheckout(
  ctx: Ctx,
  key: CheckoutKey,
  input: CheckoutUpdate,
  carriers: CarrierAccess,
): Promise<CheckoutWithLines> {
  let rate: AvailableRate | undefined;
  let seen: Date | undefined;
  if (typeof input.shipping_rate_id === 'string') {
    const { checkout, lines } = await getCheckout(ctx, key);
    requireChangeable(checkout);
    const next = applied(checkout, input);
    if (!next.shippingAddress)
      throw invalidField('shipping_rate_id', 'Set a shipping address before choosing a shipping rate.');
    const rates = await ratesFor(ctx, withTotals(ctx, next, lines), lines, carriers);
    rate = rates.find((candidate) => candidate.id === input.shipping_rate_id);
    if (!rate) {
      throw invalidField(
        'shipping_rate_id',
        `shipping_rate_id ${input.shipping_rate_id} is not among the rates available for this checkout.`,
      );
    }
    seen = checkout.updatedAt;
  }
  return writeTx(ctx, {}, async (tx) => {
    const before = await checkoutForChange(ctx, tx, key);
    if (seen && before.updatedAt.getTime() !== seen.getTime()) {
      throw new AppError(
        'conflict',
        'The checkout changed while its shipping rates were looked up. Send the change again.',
      );
    }
    const lines = await linesOf(tx, before.id);
    let next = applied(before, input);
    if (rate) next = { ...next, shippingRate: rate, shippingCost: BigInt(rate.price) };
    const after = await totalled(ctx, tx, next, lines, 'shipping_address');
    // Nothing changed: nothing written (updated_at and the expiry stay, and so does the ETag).
    if (sameState(before, after)) return { checkout: before, lines };
    return { checkout: await saveCheckout(tx, after), lines };
  });
}
