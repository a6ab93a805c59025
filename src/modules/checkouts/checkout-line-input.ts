import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Checkout, CheckoutLine } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField, type ErrorDetail } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { MAX_LINES, MAX_QUANTITY, unsellable, variantsById } from './checkout-pricing.js';

type LineInput = components['schemas']['CheckoutLineInput'];

/** One error for all the problems found: invalid_request with `field` for one, validation_error with details for several. */
function rejection(problems: ErrorDetail[]): AppError {
  if (problems.length === 1) return new AppError('invalid_request', problems[0].message, { field: problems[0].field });
  return new AppError('validation_error', `${problems.length} fields are invalid.`, { details: problems });
}

/**
 * `existing` with `inputs` added, all checked first (one request, all or nothing): a variant already on the checkout
 * (or named twice) has its quantities summed, at most 999; a new variant becomes a new line capturing product,
 * titles, SKU and its own price (the sale price when set) as base price; at most 100 lines. Prices are not resolved
 * here (priceLines does). 400 naming `lines[i].<field>` (or `lines`) otherwise.
 */
export async function newLines(
  ctx: Ctx,
  tx: Tx,
  checkout: Checkout,
  existing: CheckoutLine[],
  inputs: LineInput[],
): Promise<CheckoutLine[]> {
  const variants = await variantsById(
    ctx,
    tx,
    inputs.map((input) => input.variant_id),
  );
  const problems: ErrorDetail[] = [];
  const lines = existing.map((line) => ({ ...line }));
  let position = (existing.at(-1)?.position ?? -1) + 1;
  const now = new Date();
  for (const [index, input] of inputs.entries()) {
    const field = `lines[${index}].variant_id`;
    const variant = variants.get(input.variant_id);
    const problem = unsellable(variant, checkout.currency, field);
    if (problem) {
      problems.push({ field, message: problem });
      continue;
    }
    const line = lines.find((candidate) => candidate.variantId === input.variant_id);
    if (line) {
      line.quantity += input.quantity;
      if (line.quantity > MAX_QUANTITY) {
        problems.push({
          field: `lines[${index}].quantity`,
          message: `A line holds at most ${MAX_QUANTITY} units; this would make ${line.quantity} of ${input.variant_id}.`,
        });
      }
      continue;
    }
    const base = BigInt(variant!.salePrice ?? variant!.price);
    lines.push({
      id: newId('chkl_'),
      checkoutId: checkout.id,
      productId: variant!.productId,
      variantId: variant!.id,
      title: variant!.product.title,
      variantTitle: variant!.title,
      sku: variant!.sku,
      quantity: input.quantity,
      unitPrice: base,
      basePrice: base,
      priceListId: null,
      position: position++,
      createdAt: now,
    });
  }
  if (problems.length > 0) throw rejection(problems);
  if (lines.length > MAX_LINES)
    throw invalidField('lines', `A checkout holds at most ${MAX_LINES} lines; this would make ${lines.length}.`);
  return lines;
}
