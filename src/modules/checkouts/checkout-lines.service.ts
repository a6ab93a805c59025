import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Checkout, CheckoutLine } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import type { CheckoutKey } from './checkout-access.js';
import { newLines } from './checkout-line-input.js';
import { priceLines, totalled } from './checkout-pricing.js';
import { checkoutForChange, linesOf, saveCheckout, withoutRate, type CheckoutWithLines } from './checkouts.service.js';

type LineInput = components['schemas']['CheckoutLineInput'];

/** Whether two line lists are the same lines with the same quantities and prices. */
const sameLines = (a: CheckoutLine[], b: CheckoutLine[]) =>
  a.length === b.length &&
  a.every(
    (line, i) =>
      line.id === b[i].id &&
      line.quantity === b[i].quantity &&
      line.unitPrice === b[i].unitPrice &&
      line.priceListId === b[i].priceListId,
  );

/** Writes the lines of `after` that are new or differ from `before` (same ids), and deletes those gone. */
async function saveLines(tx: Tx, before: CheckoutLine[], after: CheckoutLine[]): Promise<void> {
  const old = new Map(before.map((line) => [line.id, line]));
  const created = after.filter((line) => !old.has(line.id));
  if (created.length > 0) await tx.checkoutLine.createMany({ data: created });
  for (const line of after) {
    const was = old.get(line.id);
    if (
      !was ||
      (was.quantity === line.quantity && was.unitPrice === line.unitPrice && was.priceListId === line.priceListId)
    )
      continue;
    await tx.checkoutLine.update({
      where: { id: line.id },
      data: { quantity: line.quantity, unitPrice: line.unitPrice, priceListId: line.priceListId },
    });
  }
  const kept = new Set(after.map((line) => line.id));
  const gone = before.filter((line) => !kept.has(line.id)).map((line) => line.id);
  if (gone.length > 0) await tx.checkoutLine.deleteMany({ where: { id: { in: gone } } });
}

/**
 * Replaces the checkout's lines by what `change` makes of them, in one transaction under the checkout's lock: every
 * line priced again for the checkout's customer, the shipping rate cleared (rates depend on the contents), the
 * totals recomputed.
 */
async function changeLines(
  ctx: Ctx,
  key: CheckoutKey,
  change: (tx: Tx, checkout: Checkout, lines: CheckoutLine[]) => Promise<CheckoutLine[]>,
): Promise<CheckoutWithLines> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await checkoutForChange(ctx, tx, key);
    const old = await linesOf(tx, before.id);
    const lines = await priceLines(ctx, tx, before, await change(tx, before, old));
    // Nothing changed: nothing written (the rate stays chosen, updated_at and the expiry stay as they were).
    if (sameLines(old, lines)) return { checkout: before, lines: old };
    await saveLines(tx, old, lines);
    const checkout = await saveCheckout(tx, await totalled(ctx, tx, withoutRate(before), lines));
    return { checkout, lines };
  });
}

/** Adds lines (see newLines). */
export const addCheckoutLines = (ctx: Ctx, key: CheckoutKey, inputs: LineInput[]) =>
  changeLines(ctx, key, (tx, checkout, lines) => newLines(ctx, tx, checkout, lines, inputs));

/** The line of the checkout; 404 "Checkout line not found." otherwise. */
function lineIn(lines: CheckoutLine[], lineId: string): CheckoutLine {
  const line = lines.find((candidate) => candidate.id === lineId);
  if (!line) throw notFound('Checkout line not found.');
  return line;
}

/** Sets a line's quantity (its price is resolved again at that quantity); no quantity changes nothing. */
export const updateCheckoutLine = (ctx: Ctx, key: CheckoutKey, lineId: string, quantity: number | undefined) =>
  changeLines(ctx, key, async (_, __, lines) => {
    lineIn(lines, lineId);
    return lines.map((line) => (line.id === lineId ? { ...line, quantity: quantity ?? line.quantity } : line));
  });

/** Removes a line. */
export async function removeCheckoutLine(ctx: Ctx, key: CheckoutKey, lineId: string): Promise<void> {
  await changeLines(ctx, key, async (_, __, lines) => {
    lineIn(lines, lineId);
    return lines.filter((line) => line.id !== lineId);
  });
}
