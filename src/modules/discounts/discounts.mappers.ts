import type { components } from '../../generated/openapi.js';
import type { Discount } from '../../generated/prisma/client.js';
import type { BuyXGetY, Conditions, Rule, Tier } from './apply.js';

type Schemas = components['schemas'];
export type DiscountResource = Schemas['Discount'];
export type PromotionResource = Schemas['Promotion'];
export type DiscountApplicationResource = Schemas['DiscountApplication'];

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** What the reductions took off each line (by position) of a basket of `count` lines. */
export function lineDiscounts(applications: DiscountApplicationResource[], count: number): number[] {
  const parts = Array.from({ length: count }, () => 0);
  for (const applied of applications) for (const line of applied.lines) parts[line.line_index] += line.amount;
  return parts;
}

/** A discount code as the API shows it. */
export function toDiscountResource(row: DiscountRow): DiscountResource {
  return {
    id: row.id,
    code: row.code!,
    title: row.title,
    status: row.status as DiscountResource['status'],
    type: row.type as DiscountResource['type'],
    value: Number(row.value),
    target: row.target as DiscountResource['target'],
    conditions: row.conditions as unknown as Conditions,
    combinable: row.combinable,
    starts_at: iso(row.startsAt),
    ends_at: iso(row.endsAt),
    usage_limit: row.usageLimit,
    usage_limit_per_customer: row.usageLimitPerCustomer,
    times_used: row._count.redemptions,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * A discount row with its uses not given back: what `times_used` shows, for codes as for promotions (the
 * `times_used` column is the count a limited code's limit is held to, under its row lock).
 */
export type DiscountRow = Discount & { _count: { redemptions: number } };

/** The include that counts a row's uses not given back. */
export const USES = { _count: { select: { redemptions: { where: { releasedAt: null } } } } } as const;

/** An automatic promotion as the API shows it. */
export function toPromotionResource(row: DiscountRow): PromotionResource {
  return {
    id: row.id,
    title: row.title,
    status: row.status as PromotionResource['status'],
    type: row.type as PromotionResource['type'],
    value: Number(row.value),
    target: row.target as PromotionResource['target'],
    conditions: row.conditions as unknown as Conditions,
    buy_x_get_y: row.buyXGetY as unknown as BuyXGetY | null,
    tiers: row.tiers as unknown as Tier[],
    combinable: row.combinable,
    priority: row.priority,
    starts_at: iso(row.startsAt),
    ends_at: iso(row.endsAt),
    times_used: row._count.redemptions,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A discount or promotion row as the evaluation reads it. */
export function toRule(row: Discount): Rule {
  return {
    id: row.id,
    source: row.kind === 'code' ? 'code' : 'promotion',
    code: row.code,
    title: row.title,
    type: row.type as Rule['type'],
    value: Number(row.value),
    target: row.target as Rule['target'],
    conditions: row.conditions as unknown as Conditions,
    combinable: row.combinable,
    priority: row.priority,
    buyXGetY: row.buyXGetY as unknown as BuyXGetY | null,
    tiers: row.tiers as unknown as Tier[],
  };
}
