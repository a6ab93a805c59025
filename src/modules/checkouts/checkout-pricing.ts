import type { Tx } from '../../db/client.js';
import type { Checkout, CheckoutLine, Discount, Prisma, Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { jsonColumn } from '../../shared/json-column.js';
import { codeToApply, customerKeyOf, discountBasket, requireApplied, type Discounted } from '../discounts/index.js';
import { MAX_AMOUNT, computeTotals, taxSettingsOf, type TaxAddress } from '../draft-orders/index.js';
import { customerPricing, priceFor, type CustomerPricing } from '../price-lists/index.js';

/** An open checkout expires this long after its last change (openapi.yaml, the checkouts tag). */
export const CHECKOUT_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Lines a checkout may hold, and units a line (openapi.yaml, the checkouts tag). */
export const MAX_LINES = 100;
export const MAX_QUANTITY = 999;

export type SellableVariant = Variant & {
  product: { title: string; currency: string; status: string; deletedAt: Date | null };
};

/** The variants named, of the project, with their product's title, currency, status and deletion. */
export async function variantsById(ctx: Ctx, tx: Tx, ids: string[]): Promise<Map<string, SellableVariant>> {
  if (ids.length === 0) return new Map();
  const variants = await tx.variant.findMany({
    where: { id: { in: ids }, projectId: ctx.project.id },
    include: { product: { select: { title: true, currency: true, status: true, deletedAt: true } } },
  });
  return new Map(variants.map((variant) => [variant.id, variant]));
}

/** Why `variant` cannot be sold on a checkout in `currency` (named on `field`), or null when it can. */
export function unsellable(variant: SellableVariant | undefined, currency: string, field: string): string | null {
  if (!variant || variant.product.deletedAt || variant.product.status !== 'active')
    return `${field} does not name a variant of an active product of this project.`;
  if (variant.product.currency !== currency)
    return `${field} is priced in ${variant.product.currency}; the checkout is in ${currency}.`;
  return null;
}

const NO_PRICING: CustomerPricing = { customerList: null, sharedLists: [] };

/**
 * The lines with their unit prices resolved for the checkout's customer (their price lists; the variant's own price,
 * its sale price when set, without a customer), each at its own quantity, from the base price captured on the line.
 */
export async function priceLines(
  ctx: Ctx,
  tx: Tx,
  checkout: Pick<Checkout, 'customerId' | 'currency'>,
  lines: CheckoutLine[],
): Promise<CheckoutLine[]> {
  if (lines.length === 0) return lines;
  const pricing = checkout.customerId
    ? await customerPricing(
        ctx,
        tx,
        checkout.customerId,
        lines.map((line) => line.variantId),
      )
    : NO_PRICING;
  const now = new Date();
  return lines.map((line) => {
    const variant = { id: line.variantId, price: Number(line.basePrice), salePrice: null };
    const resolved = priceFor(pricing, variant, line.quantity, checkout.currency, now);
    return { ...line, unitPrice: BigInt(resolved.unitPrice), priceListId: resolved.priceListId };
  });
}

/**
 * The checkout with subtotal, tax, total and line count recomputed from `lines` by the draft orders' rules
 * (totals.ts: tax per line by the project's tax setting, rounded half-up) after the reductions of `discounted`
 * (none without it): tax on what each line has left, `discount` their sum (shipping included), and its expiry
 * pushed back; 400 on `field` when the amounts would pass the bound of draft orders.
 */
export function withTotals(
  ctx: Ctx,
  checkout: Checkout,
  lines: CheckoutLine[],
  field = 'lines',
  discounted?: Discounted,
): Checkout {
  const net = discounted?.evaluation.lineNet;
  const subtotal = lines.reduce((sum, line) => sum + line.quantity * Number(line.unitPrice), 0);
  const discount = discounted?.evaluation.discount ?? 0;
  const totals = computeTotals({
    // Taxed after the reductions: each line at what it has left (as one unit, so its tax is rounded once).
    lines: lines.map((line, i) =>
      net ? { quantity: 1, unitPrice: net[i] } : { quantity: line.quantity, unitPrice: Number(line.unitPrice) },
    ),
    shippingCost: Number(checkout.shippingCost),
    discount: 0,
    manualTax: 0,
    settings: taxSettingsOf(ctx.project),
    shippingAddress: checkout.shippingAddress as TaxAddress | null,
    billingAddress: checkout.billingAddress as TaxAddress | null,
  });
  if (subtotal + totals.tax + Number(checkout.shippingCost) > MAX_AMOUNT) {
    throw invalidField(field, `A checkout's amounts must stay below ${MAX_AMOUNT} minor units.`);
  }
  const now = new Date();
  const added = totals.taxInclusive ? 0 : totals.tax;
  return {
    ...checkout,
    subtotal: BigInt(subtotal),
    tax: BigInt(totals.tax),
    taxData: totals.taxData as unknown as Prisma.JsonValue,
    taxInclusive: totals.taxInclusive,
    discount: BigInt(discount),
    discountApplications: discounted?.applications ?? [],
    total: BigInt(subtotal + added + Number(checkout.shippingCost) - discount),
    lineCount: lines.length,
    expiresAt: new Date(now.getTime() + CHECKOUT_LIFETIME_MS),
    updatedAt: now,
  };
}

/** The checkout's basket as discounts read it: its lines by position, shipping, customer. */
export const basketOfCheckout = (checkout: Checkout, lines: CheckoutLine[]) => ({
  currency: checkout.currency,
  customerId: checkout.customerId,
  shippingCost: Number(checkout.shippingCost),
  lines: lines.map((line) => ({
    productId: line.productId,
    quantity: line.quantity,
    unitPrice: Number(line.unitPrice),
  })),
});

/**
 * withTotals after the checkout's reductions: the project's live automatic promotions and the codes it holds (see
 * discounts.pricing.ts), read in `tx`.
 */
export async function totalled(
  ctx: Ctx,
  tx: Tx,
  checkout: Checkout,
  lines: CheckoutLine[],
  field = 'lines',
): Promise<Checkout> {
  const discounted = await discountBasket(ctx, tx, basketOfCheckout(checkout, lines), checkout.discountCodes);
  return withTotals(ctx, checkout, lines, field, discounted);
}

/**
 * totalled for a new checkout holding the codes sent with its creation (`discount_codes`): each checked as
 * applyCheckoutCode checks one (codeToApply, then requireApplied on the priced basket), its error naming
 * `discount_codes[i]`, so nothing is created when one is refused; a code sent twice (in any case) is held once;
 * with none, as totalled.
 */
export async function totalledWithCodes(
  ctx: Ctx,
  tx: Tx,
  checkout: Checkout,
  lines: CheckoutLine[],
  codes: string[],
): Promise<Checkout> {
  const customerKey = customerKeyOf(checkout.customerId, checkout.email);
  const held: Array<{ row: Discount; index: number }> = [];
  for (const [index, code] of codes.entries()) {
    const row = await onCode(index, () => codeToApply(ctx, tx, code, customerKey));
    if (!held.some((h) => h.row.id === row.id)) held.push({ row, index });
  }
  const next = { ...checkout, discountCodes: held.map((h) => h.row.code!) };
  const discounted = await discountBasket(ctx, tx, basketOfCheckout(next, lines), next.discountCodes);
  for (const { row, index } of held) await onCode(index, () => requireApplied(discounted, row));
  return withTotals(ctx, next, lines, 'lines', discounted);
}

/** `check`'s answer, or its error about a code named on `discount_codes[index]` instead of `code`. */
async function onCode<T>(index: number, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof AppError) || error.options.field !== 'code') throw error;
    throw new AppError(error.code, error.message, { ...error.options, field: `discount_codes[${index}]` });
  }
}

/** Columns of a checkout that writes may change (JSON columns as Prisma wants them). */
export function checkoutColumns(checkout: Checkout): Prisma.CheckoutUncheckedUpdateInput {
  const json = jsonColumn;
  return {
    status: checkout.status,
    email: checkout.email,
    shippingAddress: json(checkout.shippingAddress),
    billingAddress: json(checkout.billingAddress),
    shippingRate: json(checkout.shippingRate),
    note: checkout.note,
    subtotal: checkout.subtotal,
    tax: checkout.tax,
    taxData: json(checkout.taxData),
    taxInclusive: checkout.taxInclusive,
    shippingCost: checkout.shippingCost,
    discount: checkout.discount,
    discountCodes: checkout.discountCodes,
    discountApplications: checkout.discountApplications as Prisma.InputJsonValue,
    total: checkout.total,
    lineCount: checkout.lineCount,
    paymentProvider: checkout.paymentProvider,
    paymentStatus: checkout.paymentStatus,
    paymentReference: checkout.paymentReference,
    reservedUntil: checkout.reservedUntil,
    expiresAt: checkout.expiresAt,
    updatedAt: checkout.updatedAt,
  };
}
