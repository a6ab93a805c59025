import type { Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { PriceListPrice, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { writeTx } from '../../shared/write.js';
import { recordEvent } from '../store-events/index.js';
import { toPriceListPriceResource, toPriceListResource, type PriceListRow } from './price-lists.mappers.js';
import { findPriceList, PRICE_LIST_INCLUDE } from './price-lists.service.js';
import { deletePriceRows, upsertPriceRows } from './price-lists.sql.js';

type PriceInput = components['schemas']['PriceListPriceInput'];
type PricesQuery = NonNullable<operations['listPriceListPrices']['parameters']['query']>;

const SORTS: SortColumns<'listPriceListPrices'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** A page of the list's prices (oldest first unless asked otherwise); 404 unless the list is the project's. */
export async function listPriceListPrices(ctx: Ctx, priceListId: string, query: PricesQuery) {
  await findPriceList(ctx, ctx.db, priceListId);
  const where: Prisma.PriceListPriceWhereInput = { priceListId, variantId: query.variant_id };
  return listPage(ctx, {
    model: ctx.db.priceListPrice,
    where,
    query: { ...query, order: query.order ?? 'asc' },
    sorts: SORTS,
    map: toPriceListPriceResource,
  });
}

/** One error for all the problems found: invalid_request with `field` for one, validation_error with details for several. */
function rejection(problems: ErrorDetail[]): AppError {
  if (problems.length === 1) return new AppError('invalid_request', problems[0].message, { field: problems[0].field });
  return new AppError('validation_error', `${problems.length} prices are invalid.`, { details: problems });
}

const keyOf = (variantId: string, minQuantity: number) => `${variantId}\u0000${minQuantity}`;

/**
 * The problems of the entries: variants not of the project (to set a price: of a product not deleted; a price of a
 * deleted product's variant can still be removed), variants priced in another currency, an entry sent twice.
 */
async function problemsOf(ctx: Ctx, tx: Tx, list: PriceListRow, entries: PriceInput[]): Promise<ErrorDetail[]> {
  const variants = await tx.variant.findMany({
    where: { id: { in: [...new Set(entries.map((entry) => entry.variant_id))] }, projectId: ctx.project.id },
    select: { id: true, product: { select: { currency: true, deletedAt: true } } },
  });
  const byId = new Map(variants.map((variant) => [variant.id, variant]));
  const seen = new Set<string>();
  const problems: ErrorDetail[] = [];
  entries.forEach((entry, index) => {
    const at = `prices[${index}]`;
    const variant = byId.get(entry.variant_id);
    const key = keyOf(entry.variant_id, entry.min_quantity ?? 1);
    if (seen.has(key)) {
      problems.push({
        field: `${at}.min_quantity`,
        message: `${at} repeats the variant and min_quantity of an earlier entry; send each once.`,
      });
    }
    seen.add(key);
    if (!variant || (variant.product.deletedAt && entry.amount !== null)) {
      problems.push({
        field: `${at}.variant_id`,
        message: `${at}.variant_id does not name a variant of this project.`,
      });
    } else if (entry.amount !== null && variant.product.currency !== list.currency) {
      problems.push({
        field: `${at}.variant_id`,
        message: `${at}.variant_id is priced in ${variant.product.currency}; this price list is in ${list.currency}.`,
      });
    }
  });
  return problems;
}

/** Inserts or replaces the prices in one statement (one round trip for up to 1,000 entries). */
async function upsertPrices(tx: Tx, priceListId: string, entries: PriceInput[]): Promise<PriceListPrice[]> {
  if (entries.length === 0) return [];
  const rows = await upsertPriceRows(
    tx,
    priceListId,
    entries.map((e) => ({
      id: newId('plp_'),
      variantId: e.variant_id,
      minQuantity: e.min_quantity ?? 1,
      amount: e.amount!,
    })),
  );
  return rows.map((row) => ({
    id: row.id,
    priceListId: row.price_list_id,
    variantId: row.variant_id,
    minQuantity: row.min_quantity,
    amount: row.amount,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

/** Deletes the prices named; answers how many existed. */
async function removePrices(tx: Tx, priceListId: string, entries: PriceInput[]): Promise<number> {
  if (entries.length === 0) return 0;
  return deletePriceRows(
    tx,
    priceListId,
    entries.map((e) => ({ variantId: e.variant_id, minQuantity: e.min_quantity ?? 1 })),
  );
}

/**
 * Sets up to 1,000 prices of the list, all or nothing: every entry is checked before anything is written;
 * `amount: null` removes that variant's price from that quantity. The list's row is locked, so concurrent
 * writes to one list queue up; price_list.updated is recorded in the same transaction. Answers the stored
 * prices of the entries that set one, in the order sent.
 */
export async function setPriceListPrices(
  ctx: Ctx,
  priceListId: string,
  entries: PriceInput[],
): Promise<PriceListPrice[]> {
  return writeTx(ctx, {}, async (tx) => {
    const list = await findPriceList(ctx, tx, priceListId, true);
    const problems = await problemsOf(ctx, tx, list, entries);
    if (problems.length > 0) throw rejection(problems);
    const setting = entries.filter((entry) => entry.amount !== null);
    const removing = entries.filter((entry) => entry.amount === null);
    const stored = await upsertPrices(tx, priceListId, setting);
    const removed = await removePrices(tx, priceListId, removing);
    const after = await tx.priceList.update({
      where: { id: priceListId },
      data: { updatedAt: new Date() },
      include: PRICE_LIST_INCLUDE,
    });
    await recordEvent(tx, ctx, {
      type: 'price_list.updated',
      resourceType: 'price_list',
      resourceId: priceListId,
      summary: `Price list "${list.name}": ${setting.length} price${setting.length === 1 ? '' : 's'} set, ${removed} removed`,
      changes:
        list._count.prices === after._count.prices
          ? undefined
          : { price_count: { from: list._count.prices, to: after._count.prices } },
      payload: toPriceListResource(after),
    });
    const byKey = new Map(stored.map((price) => [keyOf(price.variantId, price.minQuantity), price]));
    return setting.map((entry) => byKey.get(keyOf(entry.variant_id, entry.min_quantity ?? 1))!);
  });
}
