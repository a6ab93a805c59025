import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Discount, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { storedInstantOf } from '../../shared/instants.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { recordChange, recordEvent, type EventType } from '../store-events/index.js';
import { checkConditionIds, checkRuleFields, conditionsOf } from './discount-fields.js';
import type { Conditions } from './apply.js';
import { lockDiscountRow } from './discounts.sql.js';
import { isLimited } from './discounts.usage.js';
import { USES, toDiscountResource, toPromotionResource, type DiscountRow } from './discounts.mappers.js';

type Schemas = components['schemas'];
type AnyCreate = Schemas['DiscountCreate'] | Schemas['PromotionCreate'];
type AnyUpdate = Schemas['DiscountUpdate'] | Schemas['PromotionUpdate'];

/** What differs between discount codes and automatic promotions: ids, names, events, representation. */
export interface Kind {
  kind: 'code' | 'automatic';
  prefix: string;
  resourceType: 'discount' | 'promotion';
  label: string;
  events: { created: EventType; updated: EventType; deleted: EventType };
  toResource: (row: DiscountRow) => object;
  fields: readonly string[];
}

const COMMON_FIELDS = [
  'title',
  'status',
  'type',
  'value',
  'target',
  'conditions',
  'combinable',
  'starts_at',
  'ends_at',
];

export const CODES: Kind = {
  kind: 'code',
  prefix: 'disc_',
  resourceType: 'discount',
  label: 'Discount',
  events: { created: 'discount.created', updated: 'discount.updated', deleted: 'discount.deleted' },
  toResource: toDiscountResource,
  fields: [...COMMON_FIELDS, 'code', 'usage_limit', 'usage_limit_per_customer'],
};

export const PROMOTIONS: Kind = {
  kind: 'automatic',
  prefix: 'promo_',
  resourceType: 'promotion',
  label: 'Promotion',
  events: { created: 'promotion.created', updated: 'promotion.updated', deleted: 'promotion.deleted' },
  toResource: toPromotionResource,
  fields: [...COMMON_FIELDS, 'buy_x_get_y', 'tiers', 'priority'],
};

const CODE_TAKEN = { code_key: { field: 'code', message: 'Another discount already has this code.' } };
const dateOrNull = (value: string | null | undefined, field: string) =>
  value ? storedInstantOf(value, field) : value === null ? null : undefined;

/** The project's discount or promotion of `kind` with this id; 404 "<Label> not found." otherwise. */
export async function findDiscount(ctx: Ctx, db: Database | Tx, kind: Kind, id: string): Promise<DiscountRow> {
  const delegate = {
    findUnique: (args: { where: { id: string } }) => db.discount.findUnique({ ...args, include: USES }),
  };
  const row = await findOwned(ctx, delegate, id, `${kind.label} not found.`);
  if (row.kind !== kind.kind) throw notFound(`${kind.label} not found.`);
  return row;
}

/** The row's columns as `input` sets them (undefined: unchanged). */
function columnsOf(input: AnyCreate | AnyUpdate) {
  const code = 'code' in input ? input.code : undefined;
  return {
    code,
    codeKey: code?.toLowerCase(),
    title: input.title,
    status: input.status,
    type: input.type,
    value: input.value === undefined ? undefined : BigInt(input.value),
    target: input.target,
    conditions: input.conditions === undefined ? undefined : (conditionsOf(input.conditions) as object),
    buyXGetY:
      'buy_x_get_y' in input && input.buy_x_get_y !== undefined
        ? ((input.buy_x_get_y ?? null) as Prisma.InputJsonValue)
        : undefined,
    tiers: 'tiers' in input ? (input.tiers as Prisma.InputJsonValue | undefined) : undefined,
    combinable: input.combinable,
    priority: 'priority' in input ? input.priority : undefined,
    startsAt: dateOrNull(input.starts_at, 'starts_at'),
    endsAt: dateOrNull(input.ends_at, 'ends_at'),
    usageLimit: 'usage_limit' in input ? input.usage_limit : undefined,
    usageLimitPerCustomer: 'usage_limit_per_customer' in input ? input.usage_limit_per_customer : undefined,
  };
}

/** The fields the kind checks read, from a row changed by `columns`. */
const ruleFieldsOf = (row: Discount) => ({
  type: row.type as Schemas['PromotionType'],
  value: Number(row.value),
  buy_x_get_y: row.buyXGetY as Schemas['BuyXGetY'] | null,
  tiers: row.tiers as unknown as Schemas['DiscountTier'][],
  starts_at: row.startsAt?.toISOString() ?? null,
  ends_at: row.endsAt?.toISOString() ?? null,
});

const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Creates a discount code (409 when its code is taken, case-insensitively) or a promotion; records `<kind>.created`. */
export async function createDiscount(ctx: Ctx, kind: Kind, input: AnyCreate): Promise<DiscountRow> {
  const now = new Date();
  const draft: Discount = {
    id: newId(kind.prefix),
    projectId: ctx.project.id,
    kind: kind.kind,
    code: null,
    codeKey: null,
    title: input.title,
    status: 'active',
    type: input.type,
    value: 0n,
    target: 'order',
    conditions: conditionsOf(undefined) as object,
    buyXGetY: null,
    tiers: [],
    combinable: false,
    priority: 0,
    startsAt: null,
    endsAt: null,
    usageLimit: null,
    usageLimitPerCustomer: null,
    timesUsed: 0,
    createdAt: now,
    updatedAt: now,
    ...(defined(columnsOf(input)) as Partial<Discount>),
  };
  checkRuleFields(ruleFieldsOf(draft));
  return writeTx(ctx, CODE_TAKEN, async (tx) => {
    await checkConditionIds(ctx, tx, draft.conditions as unknown as Conditions);
    const row = await tx.discount.create({ data: draft as Prisma.DiscountUncheckedCreateInput, include: USES });
    await recordEvent(tx, ctx, {
      type: kind.events.created,
      resourceType: kind.resourceType,
      resourceId: row.id,
      summary: `${kind.label} "${row.code ?? row.title}" created`,
      payload: kind.toResource(row),
    });
    return row;
  });
}

/** Applies the fields sent; records `<kind>.updated` with the changes; unchanged input writes nothing. */
export async function updateDiscount(ctx: Ctx, kind: Kind, id: string, input: AnyUpdate): Promise<DiscountRow> {
  return writeTx(ctx, CODE_TAKEN, async (tx) => {
    await lockDiscountRow(tx, ctx.project.id, id);
    const before = await findDiscount(ctx, tx, kind, id);
    const sent = defined(columnsOf(input)) as Partial<Discount>;
    const proposed = { ...before, ...sent };
    // A code given its first limit: its count starts from the uses made while it had none (its redemptions).
    if (kind.kind === 'code' && !isLimited(before) && isLimited(proposed)) sent.timesUsed = before._count.redemptions;
    checkRuleFields(ruleFieldsOf(proposed));
    if (sent.conditions) await checkConditionIds(ctx, tx, sent.conditions as unknown as Conditions);
    const beforeResource = kind.toResource(before);
    if (JSON.stringify(beforeResource) === JSON.stringify(kind.toResource(proposed))) return before;
    const after = await tx.discount.update({
      where: { id },
      data: sent as Prisma.DiscountUncheckedUpdateInput,
      include: USES,
    });
    await recordChange(tx, ctx, {
      type: kind.events.updated,
      resourceType: kind.resourceType,
      resourceId: id,
      label: `${kind.label} "${after.code ?? after.title}"`,
      before: beforeResource,
      after: kind.toResource(after),
      fields: kind.fields,
    });
    return after;
  });
}

/**
 * Deletes a discount or promotion no order used (`<kind>.deleted`); one that was used (a redemption exists, released
 * or not) is archived instead (`<kind>.updated`), so its orders keep naming it.
 */
export async function deleteDiscount(ctx: Ctx, kind: Kind, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await lockDiscountRow(tx, ctx.project.id, id);
    const row = await findDiscount(ctx, tx, kind, id);
    const used = (await tx.discountRedemption.count({ where: { discountId: id } })) > 0;
    if (!used) {
      await tx.discount.delete({ where: { id } });
      await recordEvent(tx, ctx, {
        type: kind.events.deleted,
        resourceType: kind.resourceType,
        resourceId: id,
        summary: `${kind.label} "${row.code ?? row.title}" deleted`,
        payload: kind.toResource(row),
      });
      return;
    }
    if (row.status === 'archived') return;
    const after = await tx.discount.update({ where: { id }, data: { status: 'archived' }, include: USES });
    await recordChange(tx, ctx, {
      type: kind.events.updated,
      resourceType: kind.resourceType,
      resourceId: id,
      label: `${kind.label} "${after.code ?? after.title}"`,
      before: kind.toResource(row),
      after: kind.toResource(after),
      fields: kind.fields,
    });
  });
}
