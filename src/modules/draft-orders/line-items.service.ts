import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { DraftLineItem, DraftOrder, Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound, type ErrorDetail } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import type { FieldChanges } from '../store-events/index.js';
import { toDraftLineItemResource } from './draft-orders.mappers.js';
import { totalled } from './draft-orders.discounts.js';
import { draftForChange, itemsOf, saveDraft } from './draft-orders.write.js';
import { pricingOf, repriceItems } from './line-pricing.js';
import { releaseReservations } from '../inventory/index.js';
import { priceFor } from '../price-lists/index.js';

type LineItemInput = components['schemas']['DraftLineItemInput'];
type LineItemUpdate = components['schemas']['DraftLineItemUpdate'];

/** One error for all the problems found: invalid_request with `field` for one, validation_error with details for several. */
function rejection(problems: ErrorDetail[]): AppError {
  if (problems.length === 1) return new AppError('invalid_request', problems[0].message, { field: problems[0].field });
  return new AppError('validation_error', `${problems.length} fields are invalid.`, { details: problems });
}

type VariantWithProduct = Variant & { product: { title: string; currency: string; deletedAt: Date | null } };

/** The variants named, of the project, with their product's title, currency and deletion. */
async function variantsById(ctx: Ctx, tx: Tx, ids: string[]): Promise<Map<string, VariantWithProduct>> {
  const variants = await tx.variant.findMany({
    where: { id: { in: ids }, projectId: ctx.project.id },
    include: { product: { select: { title: true, currency: true, deletedAt: true } } },
  });
  return new Map(variants.map((variant) => [variant.id, variant]));
}

/** The problems of one requested item, each on its field path (`items[2].variant_id`). */
function problemsOf(
  item: LineItemInput,
  index: number,
  draft: DraftOrder,
  variant: VariantWithProduct | undefined,
): ErrorDetail[] {
  const at = (field: string) => `items[${index}].${field}`;
  if (item.variant_id === undefined) {
    return (['title', 'unit_price'] as const)
      .filter((field) => item[field] === undefined)
      .map((field) => ({
        field: at(field),
        message: `${at(field)} is required for a custom item (or send variant_id for a catalog item).`,
      }));
  }
  const problems = (['title', 'unit_price'] as const)
    .filter((field) => item[field] !== undefined)
    .map((field) => ({
      field: at(field),
      message: `${at(field)} comes from the variant; send ${field} only for custom items.`,
    }));
  if (!variant || variant.product.deletedAt) {
    problems.push({ field: at('variant_id'), message: `${at('variant_id')} does not name a variant of this project.` });
  } else if (variant.product.currency !== draft.currency) {
    problems.push({
      field: at('variant_id'),
      message: `${at('variant_id')} is priced in ${variant.product.currency}; the draft order is in ${draft.currency}.`,
    });
  }
  return problems;
}

/** Line item changes as store-event changes: `items.<id>` from the old item (or null) to the new one (or null). */
export function itemChanges(before: DraftLineItem[], after: DraftLineItem[]): FieldChanges {
  const resource = (item: DraftLineItem | undefined) => (item ? toDraftLineItemResource(item) : null);
  const ids = new Set([...before, ...after].map((item) => item.id));
  const changes: FieldChanges = {};
  for (const id of ids) {
    const from = resource(before.find((item) => item.id === id));
    const to = resource(after.find((item) => item.id === id));
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[`items.${id}`] = { from, to };
  }
  return changes;
}

/**
 * Adds 1-100 items to an open or sent draft, all or nothing: every item is checked before anything is
 * written, and one bad item rejects the request. Variant items capture product, titles, SKU and their own
 * price (sale price when set) as base price now, and take the price resolved for the draft's customer (its
 * price lists; the base price without a customer). Totals are recomputed, draft_order.updated recorded and a
 * sent draft's reserved units released (send again to reserve the new items) in the same transaction; the
 * added items are returned with the draft as saved (its new totals).
 */
export async function addLineItems(
  ctx: Ctx,
  draftId: string,
  inputs: LineItemInput[],
): Promise<{ items: DraftLineItem[]; draft: DraftOrder }> {
  return writeTx(ctx, {}, async (tx) => {
    const draft = await draftForChange(ctx, tx, draftId);
    const variants = await variantsById(
      ctx,
      tx,
      inputs.flatMap((item) => (item.variant_id ? [item.variant_id] : [])),
    );
    const problems = inputs.flatMap((item, index) =>
      problemsOf(item, index, draft, item.variant_id ? variants.get(item.variant_id) : undefined),
    );
    if (problems.length > 0) throw rejection(problems);

    const before = await itemsOf(tx, draftId);
    const firstPosition = (before.at(-1)?.position ?? -1) + 1;
    const now = new Date();
    const pricing = await pricingOf(ctx, tx, draft.customerId, [...variants.keys()]);
    const added: DraftLineItem[] = inputs.map((item, index) => {
      const variant = item.variant_id ? variants.get(item.variant_id)! : undefined;
      const price = variant && priceFor(pricing, variant, item.quantity, draft.currency, now);
      return {
        id: newId('doli_'),
        draftOrderId: draftId,
        productId: variant?.productId ?? null,
        variantId: variant?.id ?? null,
        title: variant ? variant.product.title : item.title!,
        variantTitle: variant ? variant.title : '',
        sku: variant ? variant.sku : null,
        quantity: item.quantity,
        unitPrice: BigInt(price ? price.unitPrice : item.unit_price!),
        basePrice: price ? BigInt(price.basePrice) : null,
        priceListId: price ? price.priceListId : null,
        isCustom: !variant,
        note: item.note ?? null,
        position: firstPosition + index,
        createdAt: now,
      };
    });
    await tx.draftLineItem.createMany({ data: added });
    await releaseReservations(tx, ctx, draft, 'items_changed');
    const after = [...before, ...added];
    const saved = await saveDraft(tx, ctx, draft, await totalled(ctx, tx, draft, after, 'items'), {
      what: `${added.length} line item${added.length === 1 ? '' : 's'} added`,
      changes: itemChanges(before, after),
    });
    return { items: added, draft: saved };
  });
}

/** The item of the draft; 404 "Line item not found." otherwise. */
function itemIn(items: DraftLineItem[], itemId: string): DraftLineItem {
  const item = items.find((candidate) => candidate.id === itemId);
  if (!item) throw notFound('Line item not found.');
  return item;
}

/**
 * Changes quantity and note of an item, and unit price and title of a custom item (400 on a variant
 * item); a variant item's price is resolved again at its new quantity (quantity tiers of the customer's
 * price lists). Totals and draft_order.updated follow in the same transaction, and a new quantity releases a
 * sent draft's reserved units; the item is returned with the draft as saved (unchanged when nothing changed).
 */
export async function updateLineItem(
  ctx: Ctx,
  draftId: string,
  itemId: string,
  input: LineItemUpdate,
): Promise<{ item: DraftLineItem; draft: DraftOrder }> {
  return writeTx(ctx, {}, async (tx) => {
    const draft = await draftForChange(ctx, tx, draftId);
    const before = await itemsOf(tx, draftId);
    const item = itemIn(before, itemId);
    if (!item.isCustom) {
      const locked = (['unit_price', 'title'] as const).filter((field) => input[field] !== undefined);
      const what = { unit_price: 'unit price', title: 'title' };
      const problems = locked.map((field) => ({
        field,
        message: `The ${what[field]} of a variant line item comes from the variant and cannot be changed. Change it on a custom item, or remove this item and add a custom one.`,
      }));
      if (problems.length > 0) throw rejection(problems);
    }
    const edited: DraftLineItem = {
      ...item,
      quantity: input.quantity ?? item.quantity,
      note: input.note === undefined ? item.note : input.note,
      unitPrice: input.unit_price === undefined ? item.unitPrice : BigInt(input.unit_price),
      title: input.title ?? item.title,
    };
    const changed = edited.quantity === item.quantity ? edited : (await repriceItems(ctx, tx, draft, [edited]))[0];
    const after = before.map((candidate) => (candidate.id === itemId ? changed : candidate));
    const changes = itemChanges(before, after);
    if (Object.keys(changes).length === 0) return { item, draft };
    if (changed.quantity !== item.quantity) await releaseReservations(tx, ctx, draft, 'items_changed');
    const saved = await tx.draftLineItem.update({
      where: { id: itemId },
      data: {
        quantity: changed.quantity,
        note: changed.note,
        unitPrice: changed.unitPrice,
        priceListId: changed.priceListId,
        title: changed.title,
      },
    });
    // A negative total names what lowered it: a custom item's new unit price, else the quantity.
    const lowered = changed.isCustom && changed.unitPrice !== item.unitPrice ? 'unit_price' : 'quantity';
    const savedDraft = await saveDraft(tx, ctx, draft, await totalled(ctx, tx, draft, after, lowered), {
      what: 'line item changed',
      changes,
    });
    return { item: saved, draft: savedDraft };
  });
}

/** Removes an item of an open or sent draft; totals, draft_order.updated and the release of its reserved units follow in the same transaction. */
export async function deleteLineItem(ctx: Ctx, draftId: string, itemId: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const draft = await draftForChange(ctx, tx, draftId);
    const before = await itemsOf(tx, draftId);
    itemIn(before, itemId);
    await tx.draftLineItem.delete({ where: { id: itemId } });
    await releaseReservations(tx, ctx, draft, 'items_changed');
    const after = before.filter((item) => item.id !== itemId);
    await saveDraft(tx, ctx, draft, await totalled(ctx, tx, draft, after, 'items'), {
      what: 'line item removed',
      changes: itemChanges(before, after),
    });
  });
}
