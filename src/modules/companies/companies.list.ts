import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { escapeLike } from '../../shared/escape-like.js';
import { toCompanyResource } from './companies.mappers.js';
import { companyInclude } from './companies.service.js';

type CompanyListQuery = NonNullable<operations['listCompanies']['parameters']['query']>;

const SORTS: SortColumns<'listCompanies'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'sortName', kind: 'string' }],
};

/** A page of the project's companies matching the filters, with their counts (and expanded addresses and contacts). */
export async function listCompanies(ctx: Ctx, query: CompanyListQuery) {
  const where: Prisma.CompanyWhereInput = {
    projectId: ctx.project.id,
    deletedAt: null,
    type: query.type,
    name: query.search ? { contains: escapeLike(query.search), mode: 'insensitive' } : undefined,
  };
  const include = companyInclude({
    addresses: query.expand?.includes('addresses'),
    contacts: query.expand?.includes('contacts'),
  });
  const model = {
    findMany: (args: {
      where: Prisma.CompanyWhereInput;
      orderBy: Prisma.CompanyOrderByWithRelationInput[];
      take: number;
    }) => ctx.db.company.findMany({ ...args, include }),
    count: (args: { where: Prisma.CompanyWhereInput }) => ctx.db.company.count(args),
  };
  return listPage(ctx, { model, where, query, sorts: SORTS, map: toCompanyResource });
}
