import type { Database, Tx } from '../../db/client.js';
import type { Discount } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { customerGroupIds } from '../customer-groups/index.js';
import {
  evaluate,
  stackingOrder,
  type Basket,
  type Conditions,
  type Evaluation,
  type NotApplicableReason,
} from './apply.js';
import { toRule, type DiscountApplicationResource } from './discounts.mappers.js';

/** A basket as checkouts and draft orders hand it over: lines by position, shipping, the customer. */
export interface BasketInput {
  currency: string;
  customerId: string | null;
  lines: Array<{ productId: string | null; quantity: number; unitPrice: number }>;
  shippingCost: number;
}

/** What the reductions leave and what they are: the evaluation with the rows of the codes applied. */
export interface Discounted {
  evaluation: Evaluation;
  applications: DiscountApplicationResource[];
  codes: Discount[];
}

/** Whether the discount applies at `now` by its status and window. */
export const isLive = (row: Discount, now: Date) =>
  row.status === 'active' && (!row.startsAt || row.startsAt <= now) && (!row.endsAt || row.endsAt > now);

/** The project's live automatic promotions and its codes with these keys (lowercased), in one query. */
async function rowsFor(ctx: Ctx, db: Database | Tx, codeKeys: string[]): Promise<Discount[]> {
  return db.discount.findMany({
    where: {
      projectId: ctx.project.id,
      OR: [{ kind: 'automatic', status: 'active' }, ...(codeKeys.length ? [{ codeKey: { in: codeKeys } }] : [])],
    },
  });
}

/** What the rules' conditions read beyond the basket's own lines: product types and collections, customer groups. */
function readsOf(rows: Discount[]): { products: boolean; groups: boolean } {
  const conditions = rows.map((row) => row.conditions as unknown as Conditions);
  return {
    products: conditions.some((c) => c.collection_ids.length > 0 || c.product_types.length > 0),
    groups: conditions.some((c) => c.customer_group_ids.length > 0),
  };
}

/**
 * The basket with each line's product type and collections and the customer's groups, each read only when a rule
 * of `rows` has a condition on it (product ids are the lines' own).
 */
async function basketOf(ctx: Ctx, db: Database | Tx, input: BasketInput, rows: Discount[]): Promise<Basket> {
  const reads = readsOf(rows);
  const ids = [...new Set(input.lines.flatMap((line) => (line.productId ? [line.productId] : [])))];
  const [products, groupIds] = await Promise.all([
    reads.products && ids.length
      ? db.product.findMany({
          where: { id: { in: ids }, projectId: ctx.project.id },
          select: { id: true, productType: true, collections: { select: { collectionId: true } } },
        })
      : [],
    reads.groups && input.customerId ? customerGroupIds(db, ctx.project.id, input.customerId) : [],
  ]);
  const byId = new Map(products.map((product) => [product.id, product]));
  return {
    currency: input.currency,
    shippingCost: input.shippingCost,
    customerId: input.customerId,
    customerGroupIds: groupIds,
    lines: input.lines.map((line) => {
      const product = line.productId ? byId.get(line.productId) : undefined;
      return {
        productId: line.productId ?? '',
        productType: product?.productType ?? null,
        collectionIds: product?.collections.map((c) => c.collectionId) ?? [],
        quantity: line.quantity,
        unitPrice: line.unitPrice,
      };
    }),
  };
}

/** An application as the API shows it. */
function toApplicationResource(applied: Evaluation['applications'][number]): DiscountApplicationResource {
  return {
    source: applied.rule.source,
    id: applied.rule.id,
    code: applied.rule.code,
    title: applied.rule.title,
    type: applied.rule.type,
    amount: applied.amount,
    lines: applied.lines,
    shipping_amount: applied.shipping_amount,
  };
}

/**
 * The basket's reductions at `now`: the project's live automatic promotions and, of `codes` (as applied, in
 * order), those live and whose conditions hold, stacked and rounded as apply.ts says. Codes that are unknown,
 * archived or outside their window are left out (they appear in neither list). A basket with no line gets nothing.
 */
export async function discountBasket(
  ctx: Ctx,
  db: Database | Tx,
  input: BasketInput,
  codes: string[],
  now = new Date(),
): Promise<Discounted> {
  const keys = codes.map((code) => code.toLowerCase());
  const rows = input.lines.length ? await rowsFor(ctx, db, keys) : [];
  const promotions = rows.filter((row) => row.kind === 'automatic' && isLive(row, now));
  const applied = keys.flatMap((key) => rows.filter((row) => row.codeKey === key && isLive(row, now)));
  const basket = await basketOf(ctx, db, input, [...promotions, ...applied]);
  const evaluation = evaluate(basket, stackingOrder(promotions.map(toRule), applied.map(toRule)));
  return { evaluation, applications: evaluation.applications.map(toApplicationResource), codes: applied };
}

const REASONS: Record<NotApplicableReason, string> = {
  min_subtotal: 'needs a higher subtotal',
  products: 'does not apply to the products in the basket',
  customer: 'is not available to this customer',
  currency: 'does not apply in this currency',
  not_combinable: 'cannot be combined with the reductions already applied',
};

/**
 * The code row a shopper's `code` names, checked for applying: 422 discount_invalid (no such active code of the
 * project), discount_expired (outside its window), 409 usage_limit_reached (its total limit, or the per-customer
 * limit for `customerKey`, is used up).
 */
export async function codeToApply(
  ctx: Ctx,
  db: Database | Tx,
  code: string,
  customerKey: string | null,
  now = new Date(),
): Promise<Discount> {
  const row = await db.discount.findFirst({
    where: { projectId: ctx.project.id, kind: 'code', codeKey: code.toLowerCase() },
  });
  if (!row || row.status !== 'active')
    throw new AppError('discount_invalid', `${code} is not a valid discount code.`, { field: 'code' });
  if (!isLive(row, now))
    throw new AppError('discount_expired', `The code ${row.code} is not valid at this time.`, { field: 'code' });
  if (row.usageLimit !== null && row.timesUsed >= row.usageLimit) throw usageLimitReached(row);
  if (customerKey && row.usageLimitPerCustomer !== null) {
    const used = await db.discountRedemption.count({ where: { discountId: row.id, customerKey, releasedAt: null } });
    if (used >= row.usageLimitPerCustomer) throw usageLimitReached(row);
  }
  return row;
}

/** 409 usage_limit_reached for the code. */
export const usageLimitReached = (row: Pick<Discount, 'code'>) =>
  new AppError('usage_limit_reached', `The code ${row.code} has reached its usage limit.`, { field: 'code' });

/** 422 discount_not_applicable with the reason, when `rowId` is among the codes the evaluation rejected. */
export function requireApplied(discounted: Discounted, row: Discount): void {
  const rejected = discounted.evaluation.rejected.find((r) => r.rule.id === row.id);
  if (rejected) {
    throw new AppError('discount_not_applicable', `The code ${row.code} ${REASONS[rejected.reason]}.`, {
      field: 'code',
      reason: rejected.reason,
    });
  }
}

/** The key per-customer limits count: the customer's id, else the e-mail lowercased; null when neither is known. */
export const customerKeyOf = (customerId: string | null, email: string | null) =>
  customerId ?? email?.trim().toLowerCase() ?? null;
