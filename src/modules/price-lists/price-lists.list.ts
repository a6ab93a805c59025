import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { toPriceListResource } from './price-lists.mappers.js';
import { PRICE_LIST_INCLUDE } from './price-lists.service.js';

type PriceListQuery = NonNullable<operations['listPriceLists']['parameters']['query']>;

const SORTS: SortColumns<'listPriceLists'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'sortName', kind: 'string' }],
};

/** A page of the project's price lists matching the filters, with their price counts. */
export async function listPriceLists(ctx: Ctx, query: PriceListQuery) {
  const where: Prisma.PriceListWhereInput = {
    projectId: ctx.project.id,
    status: query.status,
    currency: query.currency,
    slug: query.slug,
  };
  const model = {
    findMany: (args: {
      where: Prisma.PriceListWhereInput;
      orderBy: Prisma.PriceListOrderByWithRelationInput[];
      take: number;
    }) => ctx.db.priceList.findMany({ ...args, include: PRICE_LIST_INCLUDE }),
    count: (args: { where: Prisma.PriceListWhereInput }) => ctx.db.priceList.count(args),
  };
  return listPage(ctx, { model, where, query, sorts: SORTS, map: toPriceListResource });
}
