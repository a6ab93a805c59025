import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { toPurchaseOrderResource } from './purchase-orders.mappers.js';
import { LINES_IN_ORDER } from './purchase-orders.service.js';

type PurchaseOrderListQuery = NonNullable<operations['listPurchaseOrders']['parameters']['query']>;

const SORTS: SortColumns<'listPurchaseOrders'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** A page of the project's purchase orders matching the filters, with their lines. */
export async function listPurchaseOrders(ctx: Ctx, query: PurchaseOrderListQuery) {
  const where: Prisma.PurchaseOrderWhereInput = {
    projectId: ctx.project.id,
    status: query.status,
    locationId: query.location_id,
    supplierId: query.supplier_id,
  };
  const model = {
    findMany: (args: {
      where: Prisma.PurchaseOrderWhereInput;
      orderBy: Prisma.PurchaseOrderOrderByWithRelationInput[];
      take: number;
    }) => ctx.db.purchaseOrder.findMany({ ...args, include: LINES_IN_ORDER }),
    count: (args: { where: Prisma.PurchaseOrderWhereInput }) => ctx.db.purchaseOrder.count(args),
  };
  return listPage(ctx, { model, where, query, sorts: SORTS, map: toPurchaseOrderResource });
}
