import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { toDraftOrderResource } from './draft-orders.mappers.js';

type DraftOrderListQuery = NonNullable<operations['listDraftOrders']['parameters']['query']>;

const SORTS: SortColumns<'listDraftOrders'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** A page of the project's draft orders matching the filters, newest first by default; items inlined with expand=items. */
export async function listDraftOrders(ctx: Ctx, query: DraftOrderListQuery) {
  const where: Prisma.DraftOrderWhereInput = {
    projectId: ctx.project.id,
    status: query.status,
    customerEmail: query.customer_email ? { equals: query.customer_email, mode: 'insensitive' } : undefined,
  };
  const include = query.expand?.includes('items') ? { items: { orderBy: { position: 'asc' as const } } } : undefined;
  return listPage(ctx, {
    model: {
      findMany: (args) => ctx.db.draftOrder.findMany({ ...args, include }),
      count: (args) => ctx.db.draftOrder.count(args),
    },
    where,
    query,
    sorts: SORTS,
    map: (row) =>
      toDraftOrderResource(row, 'items' in row ? (row.items as Parameters<typeof toDraftOrderResource>[1]) : undefined),
    cacheTotals: { list: 'draft_orders', tables: ['draft_orders'] },
  });
}
