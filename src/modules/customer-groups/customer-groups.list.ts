import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { escapeLike } from '../../shared/escape-like.js';
import { toGroupResource } from './customer-groups.mappers.js';
import { groupsOfCustomerWhere, groupViews } from './membership.js';

type GroupListQuery = NonNullable<operations['listCustomerGroups']['parameters']['query']>;

const SORTS: SortColumns<'listCustomerGroups'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'sortName', kind: 'string' }],
};

/** A page of the project's groups matching the filters, each with its member count (and first members with expand=members). */
export async function listGroups(ctx: Ctx, query: GroupListQuery) {
  const where: Prisma.CustomerGroupWhereInput = {
    projectId: ctx.project.id,
    deletedAt: null,
    name: query.search ? { contains: escapeLike(query.search), mode: 'insensitive' } : undefined,
    AND: query.customer_id ? [await groupsOfCustomerWhere(ctx, query.customer_id)] : undefined,
  };
  const withMembers = query.expand?.includes('members') ?? false;
  const model = {
    findMany: async (args: {
      where: Prisma.CustomerGroupWhereInput;
      orderBy: Prisma.CustomerGroupOrderByWithRelationInput[];
      take: number;
    }) => groupViews(ctx, await ctx.db.customerGroup.findMany(args), withMembers),
    count: (args: { where: Prisma.CustomerGroupWhereInput }) => ctx.db.customerGroup.count(args),
  };
  return listPage(ctx, { model, where, query, sorts: SORTS, map: toGroupResource });
}
