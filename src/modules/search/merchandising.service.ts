import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { MerchandisingRule } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';

type RuleCreate = components['schemas']['MerchandisingRuleCreate'];
type RuleUpdate = components['schemas']['MerchandisingRuleUpdate'];
type Action = RuleCreate['action'];

const PIN_CONFLICT = {
  pin: {
    field: 'pin_position',
    message: 'Another active pin rule already pins a product at this position for this match_query and match_type.',
  },
};
const NOT_FOUND = 'Merchandising rule not found.';

const normalizeMatch = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** pin needs pin_position, boost and bury need score_multiplier; the other parameter is cleared. */
function actionParameters(
  action: Action,
  pinPosition: number | null | undefined,
  multiplier: number | null | undefined,
) {
  if (action === 'pin') {
    if (pinPosition === null || pinPosition === undefined)
      throw invalidField('pin_position', 'pin_position is required when action is pin.');
    return { pinPosition, scoreMultiplier: null };
  }
  if (action === 'boost' || action === 'bury') {
    if (multiplier === null || multiplier === undefined) {
      throw invalidField('score_multiplier', `score_multiplier (0.01-100) is required when action is ${action}.`);
    }
    return { pinPosition: null, scoreMultiplier: multiplier };
  }
  return { pinPosition: null, scoreMultiplier: null };
}

async function checkProduct(tx: Tx, ctx: Ctx, productId: string): Promise<void> {
  const product = await tx.product.findFirst({
    where: { id: productId, projectId: ctx.project.id, deletedAt: null },
    select: { id: true },
  });
  if (!product) throw invalidField('product_id', `No such product in this project: ${productId}.`);
}

/** The project's rules, priority descending, then oldest first. */
export async function listMerchandisingRules(ctx: Ctx): Promise<MerchandisingRule[]> {
  return ctx.db.merchandisingRule.findMany({
    where: { projectId: ctx.project.id },
    orderBy: [{ priority: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** The rule; 404 unless it is the project's. */
export async function getMerchandisingRule(ctx: Ctx, id: string): Promise<MerchandisingRule> {
  return findOwned(ctx, ctx.db.merchandisingRule, id, NOT_FOUND);
}

/** Creates a rule; a second active pin on one (match_query, match_type, pin_position) is 409. */
export async function createMerchandisingRule(ctx: Ctx, input: RuleCreate): Promise<MerchandisingRule> {
  const parameters = actionParameters(input.action, input.pin_position, input.score_multiplier);
  return writeTx(ctx, PIN_CONFLICT, async (tx) => {
    await checkProduct(tx, ctx, input.product_id);
    return tx.merchandisingRule.create({
      data: {
        id: newId('mr_'),
        projectId: ctx.project.id,
        name: input.name,
        matchQuery: normalizeMatch(input.match_query),
        matchType: input.match_type ?? 'contains',
        action: input.action,
        productId: input.product_id,
        ...parameters,
        priority: input.priority ?? 0,
        isActive: input.is_active ?? true,
      },
    });
  });
}

/** Applies the fields sent; a new action needs its parameter (sent now or already on the rule). */
export async function updateMerchandisingRule(ctx: Ctx, id: string, input: RuleUpdate): Promise<MerchandisingRule> {
  return writeTx(ctx, PIN_CONFLICT, async (tx) => {
    const rule = await findOwned(ctx, tx.merchandisingRule, id, NOT_FOUND);
    const action = input.action ?? (rule.action as Action);
    const parameters = actionParameters(
      action,
      input.pin_position !== undefined ? input.pin_position : rule.pinPosition,
      input.score_multiplier !== undefined ? input.score_multiplier : rule.scoreMultiplier,
    );
    if (input.product_id !== undefined) await checkProduct(tx, ctx, input.product_id);
    return tx.merchandisingRule.update({
      where: { id },
      data: {
        name: input.name,
        matchQuery: input.match_query === undefined ? undefined : normalizeMatch(input.match_query),
        matchType: input.match_type,
        action,
        productId: input.product_id,
        ...parameters,
        priority: input.priority,
        isActive: input.is_active,
      },
    });
  });
}

/** Deletes the rule. */
export async function deleteMerchandisingRule(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findOwned(ctx, tx.merchandisingRule, id, NOT_FOUND);
    await tx.merchandisingRule.delete({ where: { id } });
  });
}
