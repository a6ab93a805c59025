import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { changedFields, recordChange, recordEvent } from '../store-events/index.js';
import { checkPriceListFields, toDate } from './price-list-fields.js';
import { toPriceListResource, type PriceListRow } from './price-lists.mappers.js';

type PriceListCreate = components['schemas']['PriceListCreate'];
type PriceListUpdate = components['schemas']['PriceListUpdate'];

/** The Prisma include of a price list: its number of prices, counted when read. */
export const PRICE_LIST_INCLUDE = { _count: { select: { prices: true } } } as const;

const UPDATABLE_FIELDS = [
  'slug',
  'name',
  'description',
  'currency',
  'status',
  'starts_at',
  'ends_at',
  'allows_increase',
  'metadata',
] as const;
const SLUG_TAKEN = { slug: { field: 'slug', message: 'Another price list already has this slug.' } };

/** The price list of the project with its price count; 404 "Price list not found." otherwise. With `lock`, its row stays locked for the transaction. */
export async function findPriceList(ctx: Ctx, db: Database | Tx, id: string, lock = false): Promise<PriceListRow> {
  if (lock) await lockRows(db, 'price_lists', { projectId: ctx.project.id, ids: [id] });
  return findOwned(
    ctx,
    { findUnique: (args) => db.priceList.findUnique({ ...args, include: PRICE_LIST_INCLUDE }) },
    id,
    'Price list not found.',
  );
}

/** The price list with its price count. */
export async function getPriceList(ctx: Ctx, id: string): Promise<PriceListRow> {
  return findPriceList(ctx, ctx.db, id);
}

/** Creates an empty price list (409 when the slug is taken) and records price_list.created. */
export async function createPriceList(ctx: Ctx, input: PriceListCreate): Promise<PriceListRow> {
  const startsAt = toDate(input.starts_at, 'starts_at') ?? null;
  const endsAt = toDate(input.ends_at, 'ends_at') ?? null;
  checkPriceListFields({ currency: input.currency, startsAt, endsAt });
  return writeTx(ctx, SLUG_TAKEN, async (tx) => {
    const list = await tx.priceList.create({
      data: {
        id: newId('pl_'),
        projectId: ctx.project.id,
        slug: input.slug,
        name: input.name,
        sortName: input.name.toLowerCase(),
        description: input.description ?? null,
        currency: input.currency,
        status: input.status ?? 'active',
        startsAt,
        endsAt,
        allowsIncrease: input.allows_increase ?? false,
        metadata: input.metadata ?? {},
      },
      include: PRICE_LIST_INCLUDE,
    });
    await recordEvent(tx, ctx, {
      type: 'price_list.created',
      resourceType: 'price_list',
      resourceId: list.id,
      summary: `Price list "${list.name}" (${list.slug}) created`,
      payload: toPriceListResource(list),
    });
    return list;
  });
}

/**
 * Applies the fields sent (metadata replaced) and records price_list.updated with the changes; unchanged
 * input writes nothing. The window is checked as it will be after the change; the currency changes only
 * while the list holds no prices (its prices are amounts in it).
 */
export async function updatePriceList(ctx: Ctx, id: string, input: PriceListUpdate): Promise<PriceListRow> {
  return writeTx(ctx, SLUG_TAKEN, async (tx) => {
    const before = await findPriceList(ctx, tx, id, true);
    const data = {
      slug: input.slug,
      name: input.name,
      sortName: input.name?.toLowerCase(),
      description: input.description,
      currency: input.currency,
      status: input.status,
      startsAt: toDate(input.starts_at, 'starts_at'),
      endsAt: toDate(input.ends_at, 'ends_at'),
      allowsIncrease: input.allows_increase,
      metadata: input.metadata as Prisma.InputJsonValue | undefined,
    };
    const sent = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
    const proposed = { ...before, ...sent } as PriceListRow;
    checkPriceListFields({ currency: input.currency, startsAt: proposed.startsAt, endsAt: proposed.endsAt });
    if (input.currency !== undefined && input.currency !== before.currency && before._count.prices > 0) {
      throw invalidField(
        'currency',
        `The list holds ${before._count.prices} prices in ${before.currency}; remove them (amount: null) or create another list for ${input.currency}.`,
      );
    }
    const beforeResource = toPriceListResource(before);
    if (Object.keys(changedFields(beforeResource, toPriceListResource(proposed), UPDATABLE_FIELDS)).length === 0)
      return before;
    const after = await tx.priceList.update({ where: { id }, data, include: PRICE_LIST_INCLUDE });
    await recordChange(tx, ctx, {
      type: 'price_list.updated',
      resourceType: 'price_list',
      resourceId: id,
      label: `Price list "${after.name}"`,
      before: beforeResource,
      after: toPriceListResource(after),
      fields: UPDATABLE_FIELDS,
    });
    return after;
  });
}

/** Deletes the list and its prices (also while keys name it: they then resolve to nothing); records price_list.deleted. */
export async function deletePriceList(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const list = await findPriceList(ctx, tx, id, true);
    await tx.priceList.delete({ where: { id } });
    await recordEvent(tx, ctx, {
      type: 'price_list.deleted',
      resourceType: 'price_list',
      resourceId: id,
      summary: `Price list "${list.name}" (${list.slug}) deleted`,
      payload: toPriceListResource(list),
    });
  });
}
