import type { Database } from '../../db/client.js';
import type { operations } from '../../generated/openapi.js';
import { Prisma, type Customer, type Project } from '../../generated/prisma/client.js';
import { paginate, paginateByOffset, type KeysetOrder } from '../../shared/pagination.js';
import { relevanceRankSql, searchSql, searchWhere } from './customer-search.js';

export type CustomerListQuery = NonNullable<operations['listCustomers']['parameters']['query']>;

const SORT_KEYS: Record<'created_at' | 'updated_at' | 'name', KeysetOrder['keys']> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'sortName', kind: 'string' }],
};

function customerWhere(projectId: string, query: CustomerListQuery): Prisma.CustomerWhereInput {
  return {
    projectId,
    deletedAt: null,
    emailNormalized: query.email?.toLowerCase(),
    status: query.status,
    createdAt: query.created_after ? { gt: new Date(query.created_after) } : undefined,
    orderCount: query.min_orders !== undefined || query.max_orders !== undefined ? { gte: query.min_orders, lte: query.max_orders } : undefined,
    totalSpent: query.min_spent !== undefined ? { gte: query.min_spent } : undefined,
    AND: query.search ? searchWhere(query.search) : undefined,
  };
}

/** customerWhere as SQL, for the relevance query; both must select the same customers. */
function customerWhereSql(projectId: string, query: CustomerListQuery): Prisma.Sql {
  const conditions = [Prisma.sql`project_id = ${projectId}`, Prisma.sql`deleted_at IS NULL`];
  if (query.email) conditions.push(Prisma.sql`email_normalized = ${query.email.toLowerCase()}`);
  if (query.status) conditions.push(Prisma.sql`status = ${query.status}`);
  if (query.created_after) conditions.push(Prisma.sql`created_at > ${new Date(query.created_after)}`);
  if (query.min_orders !== undefined) conditions.push(Prisma.sql`order_count >= ${query.min_orders}`);
  if (query.max_orders !== undefined) conditions.push(Prisma.sql`order_count <= ${query.max_orders}`);
  if (query.min_spent !== undefined) conditions.push(Prisma.sql`total_spent >= ${query.min_spent}`);
  if (query.search) conditions.push(...searchSql(query.search));
  return Prisma.join(conditions, ' AND ');
}

/** A page of the project's customers matching the filters, in the requested order. */
export async function listCustomers(db: Database, project: Project, query: CustomerListQuery) {
  const where = customerWhere(project.id, query);
  const { cursor, limit, sort = 'created_at', order = 'desc', fields: _fields, ...filters } = query;
  const count = () => db.customer.count({ where });

  if (sort === 'relevance' && query.search) {
    const search = query.search;
    return paginateByOffset<Customer>({
      secret: project.signingSecret,
      params: { cursor, limit },
      shape: { filters, sort },
      count,
      fetch: async ({ offset, take }) => {
        const ranked = await db.$queryRaw<Array<{ id: string }>>`
          SELECT id FROM customers WHERE ${customerWhereSql(project.id, query)}
          ORDER BY ${relevanceRankSql(search)}, created_at DESC, id DESC
          LIMIT ${take} OFFSET ${offset}`;
        const rows = await db.customer.findMany({ where: { id: { in: ranked.map((r) => r.id) } } });
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ranked.map((r) => byId.get(r.id)!).filter(Boolean);
      },
    });
  }

  const keys = SORT_KEYS[sort === 'relevance' ? 'created_at' : sort];
  return paginate({
    secret: project.signingSecret,
    params: { cursor, limit, order },
    orderBy: { keys, order },
    shape: { filters, sort: sort === 'relevance' ? 'created_at' : sort },
    count,
    fetch: ({ after, orderBy, take }) => db.customer.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take }),
  });
}
