import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { USES, toDiscountResource, toPromotionResource } from './discounts.mappers.js';

type DiscountQuery = NonNullable<operations['listDiscounts']['parameters']['query']>;
type PromotionQuery = NonNullable<operations['listPromotions']['parameters']['query']>;

const SORTS: SortColumns<'listDiscounts'> & SortColumns<'listPromotions'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** The model as lists read it, for the rows matching `where`. */
const modelOf = (ctx: Ctx) => ({
  findMany: (args: {
    where: Prisma.DiscountWhereInput;
    orderBy: Prisma.DiscountOrderByWithRelationInput[];
    take: number;
  }) => ctx.db.discount.findMany({ ...args, include: USES }),
  count: (args: { where: Prisma.DiscountWhereInput }) => ctx.db.discount.count(args),
});

/** A page of the project's discount codes matching the filters (`code` case-insensitively). */
export function listDiscounts(ctx: Ctx, query: DiscountQuery) {
  const where: Prisma.DiscountWhereInput = {
    projectId: ctx.project.id,
    kind: 'code',
    status: query.status,
    codeKey: query.code?.toLowerCase(),
  };
  return listPage(ctx, { model: modelOf(ctx), where, query, sorts: SORTS, map: toDiscountResource });
}

/** A page of the project's automatic promotions matching the filters. */
export function listPromotions(ctx: Ctx, query: PromotionQuery) {
  const where: Prisma.DiscountWhereInput = { projectId: ctx.project.id, kind: 'automatic', status: query.status };
  return listPage(ctx, { model: modelOf(ctx), where, query, sorts: SORTS, map: toPromotionResource });
}
