import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { pickFields } from '../../shared/fields.js';
import { filterInstantOf } from '../../shared/instants.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { paginateByOffset } from '../../shared/pagination.js';
import { sql } from '../../shared/sql-list.js';
import { groupMembersWhere } from '../customer-groups/index.js';
import { relevanceTiers, searchWhere } from './customer-search.js';
import { toCustomerResource } from './customers.mappers.js';
import { customerList } from './customers.statements.js';

export type CustomerListQuery = NonNullable<operations['listCustomers']['parameters']['query']>;

const SORTS: Omit<SortColumns<'listCustomers'>, 'relevance'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'sortName', kind: 'string' }],
};

/** The one definition of which customers a list query selects (`group`: the members filter of group_id). */
function customerWhere(
  projectId: string,
  query: CustomerListQuery,
  group?: Prisma.CustomerWhereInput,
): Prisma.CustomerWhereInput {
  return {
    projectId,
    deletedAt: null,
    emailNormalized: query.email?.toLowerCase(),
    status: query.status,
    createdAt: query.created_after ? { gt: filterInstantOf(query.created_after) } : undefined,
    orderCount:
      query.min_orders !== undefined || query.max_orders !== undefined
        ? { gte: query.min_orders, lte: query.max_orders }
        : undefined,
    totalSpent: query.min_spent !== undefined ? { gte: query.min_spent } : undefined,
    AND: [...(query.search ? searchWhere(query.search) : []), ...(group ? [group] : [])],
  };
}

/**
 * The filters of customerWhere but search and group_id, as SQL conditions for the prepared list (a page without
 * a search or group filter, the common one).
 */
function customerConditions(projectId: string, query: CustomerListQuery) {
  return [
    sql`project_id = ${projectId}`,
    sql`deleted_at IS NULL`,
    query.email !== undefined && sql`email_normalized = ${query.email.toLowerCase()}`,
    query.status !== undefined && sql`status = ${query.status}`,
    query.created_after !== undefined && sql`created_at > ${filterInstantOf(query.created_after)}`,
    query.min_orders !== undefined && sql`order_count >= ${query.min_orders}`,
    query.max_orders !== undefined && sql`order_count <= ${query.max_orders}`,
    query.min_spent !== undefined && sql`total_spent >= ${query.min_spent}`,
  ];
}

/** A page of the project's customers matching the filters, in the requested order. */
export async function listCustomers(ctx: Ctx, query: CustomerListQuery) {
  if (!query.search && !query.group_id) {
    const sort = query.sort === 'relevance' ? 'created_at' : query.sort;
    return listPage(ctx, {
      source: customerList(ctx.db, customerConditions(ctx.project.id, query)),
      query: { ...query, sort },
      sorts: SORTS,
      map: toCustomerResource,
      cacheTotals: { list: 'customers', tables: ['customers'] },
    });
  }
  const where = customerWhere(
    ctx.project.id,
    query,
    query.group_id ? await groupMembersWhere(ctx, query.group_id) : undefined,
  );
  if (query.sort === 'relevance' && query.search) return listByRelevance(ctx, query, where, query.search);
  // Without a search there is nothing to rank: relevance falls back to newest first.
  const sort = query.sort === 'relevance' ? 'created_at' : query.sort;
  // A group filter reads memberships, groups and addresses, which carry no table_changed trigger: counted each time.
  const cacheTotals = query.group_id ? undefined : { list: 'customers', tables: ['customers'] };
  return listPage(ctx, {
    model: ctx.db.customer,
    where,
    query: { ...query, sort },
    sorts: SORTS,
    map: toCustomerResource,
    cacheTotals,
  });
}

/**
 * Best matches first (see relevanceTiers), newest first within a tier. Each tier is the list's own
 * filter plus the tier's condition minus the better tiers', so ranking never widens what matches; the
 * signed cursor carries the offset.
 */
async function listByRelevance(ctx: Ctx, query: CustomerListQuery, where: Prisma.CustomerWhereInput, search: string) {
  const tiers = relevanceTiers(search).map((tier, i, all) => ({ AND: [where, tier], NOT: all.slice(0, i) }));
  const counts = Promise.all(tiers.map((tier) => ctx.db.customer.count({ where: tier })));
  // Awaited later, or never when the cursor is refused first: its failure must not go unhandled (that ends the process).
  counts.catch(() => undefined);
  const { cursor, limit, fields, expand: _expand, ...filters } = query;
  const page = await paginateByOffset({
    secret: ctx.project.signingSecret,
    params: { cursor, limit },
    shape: { filters, sort: 'relevance' },
    count: async () => (await counts).reduce((sum, count) => sum + count, 0),
    fetch: async ({ offset, take }) => {
      const rows = [];
      let skip = offset;
      for (const [i, count] of (await counts).entries()) {
        if (rows.length >= take) break;
        if (skip >= count) {
          skip -= count;
          continue;
        }
        rows.push(
          ...(await ctx.db.customer.findMany({
            where: tiers[i],
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            skip,
            take: take - rows.length,
          })),
        );
        skip = 0;
      }
      return rows;
    },
  });
  return { data: page.rows.map((row) => pickFields(toCustomerResource(row), fields)), pagination: page.pagination };
}
