import type { operations } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { sql } from '../../shared/sql-list.js';
import { draftOrderList } from './draft-orders.statements.js';
import { toDraftOrderResource } from './draft-orders.mappers.js';

type DraftOrderListQuery = NonNullable<operations['listDraftOrders']['parameters']['query']>;

const SORTS: SortColumns<'listDraftOrders'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
};

/** A page of the project's draft orders matching the filters, newest first by default; items inlined with expand=items. */
export async function listDraftOrders(ctx: Ctx, query: DraftOrderListQuery) {
  const source = draftOrderList(
    ctx.db,
    [
      sql`project_id = ${ctx.project.id}`,
      query.status !== undefined && sql`status = ${query.status}`,
      // Case-insensitive equality (not a pattern: % and _ match only themselves).
      query.customer_email !== undefined && sql`lower(customer_email) = lower(${query.customer_email})`,
    ],
    query.expand?.includes('items') ?? false,
  );
  return listPage(ctx, {
    source,
    query,
    sorts: SORTS,
    map: (row) => toDraftOrderResource(row, row.items),
    cacheTotals: { list: 'draft_orders', tables: ['draft_orders'] },
  });
}
