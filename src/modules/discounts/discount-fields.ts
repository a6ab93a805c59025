import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';
import type { Conditions } from './apply.js';

type Schemas = components['schemas'];
type RuleFields = Partial<
  Pick<Schemas['PromotionCreate'], 'type' | 'value' | 'buy_x_get_y' | 'tiers' | 'starts_at' | 'ends_at'>
>;

/** Every condition set by `input`, the others unset (empty lists, null). */
export function conditionsOf(input: Schemas['DiscountConditionsInput'] | undefined): Conditions {
  return {
    min_subtotal: input?.min_subtotal ?? null,
    product_ids: input?.product_ids ?? [],
    collection_ids: input?.collection_ids ?? [],
    product_types: input?.product_types ?? [],
    customer_group_ids: input?.customer_group_ids ?? [],
    customer_ids: input?.customer_ids ?? [],
    currency: input?.currency ?? null,
  };
}

/**
 * 400 on the field that does not fit the kind: a percentage 1-100, a fixed amount above 0, free shipping 0,
 * buy_x_get_y with its deal, tiered with 1-10 tiers (percentages 1-100), ends_at after starts_at.
 */
export function checkRuleFields(rule: RuleFields): void {
  const { type, value = 0 } = rule;
  if (type === 'percentage' && (value < 1 || value > 100))
    throw invalidField('value', 'A percentage discount takes a value from 1 to 100.');
  if (type === 'fixed_amount' && value < 1)
    throw invalidField('value', 'A fixed_amount discount takes a value above 0 (minor units).');
  if ((type === 'free_shipping' || type === 'buy_x_get_y' || type === 'tiered') && value !== 0)
    throw invalidField('value', `A ${type} discount takes no value (0).`);
  if (type === 'buy_x_get_y' && !rule.buy_x_get_y)
    throw invalidField('buy_x_get_y', 'A buy_x_get_y promotion needs buy_x_get_y.');
  if (type !== 'buy_x_get_y' && rule.buy_x_get_y)
    throw invalidField('buy_x_get_y', 'buy_x_get_y is only for a buy_x_get_y promotion.');
  if (type === 'tiered' && (rule.tiers ?? []).length === 0)
    throw invalidField('tiers', 'A tiered promotion needs at least one tier.');
  if (type !== 'tiered' && (rule.tiers ?? []).length > 0)
    throw invalidField('tiers', 'tiers are only for a tiered promotion.');
  for (const tier of rule.tiers ?? []) {
    if (tier.type === 'percentage' && (tier.value < 1 || tier.value > 100))
      throw invalidField('tiers', 'A percentage tier takes a value from 1 to 100.');
  }
  if (rule.starts_at && rule.ends_at && new Date(rule.ends_at) <= new Date(rule.starts_at))
    throw invalidField('ends_at', 'ends_at must be after starts_at.');
}

/**
 * 400 on `conditions` when it names a product, collection, customer group or customer that is not the project's
 * (live), so a condition can never reach into another project.
 */
export async function checkConditionIds(
  ctx: Pick<Ctx, 'project'>,
  db: Database | Tx,
  conditions: Conditions,
): Promise<void> {
  checkCurrencyCode(conditions.currency, 'conditions.currency');
  const projectId = ctx.project.id;
  const counts = await Promise.all([
    conditions.product_ids.length
      ? db.product.count({ where: { id: { in: conditions.product_ids }, projectId, deletedAt: null } })
      : 0,
    conditions.collection_ids.length
      ? db.collection.count({ where: { id: { in: conditions.collection_ids }, projectId } })
      : 0,
    conditions.customer_group_ids.length
      ? db.customerGroup.count({ where: { id: { in: conditions.customer_group_ids }, projectId, deletedAt: null } })
      : 0,
    conditions.customer_ids.length
      ? db.customer.count({ where: { id: { in: conditions.customer_ids }, projectId, deletedAt: null } })
      : 0,
  ]);
  const names = ['product_ids', 'collection_ids', 'customer_group_ids', 'customer_ids'] as const;
  names.forEach((name, i) => {
    if (counts[i] !== new Set(conditions[name]).size)
      throw invalidField('conditions', `conditions.${name} names an id that is not one of this project's.`);
  });
}
