import type { Database } from '../../db/client.js';
import type { operations } from '../../generated/openapi.js';
import type { Prisma, Project } from '../../generated/prisma/client.js';
import { paginate, type KeysetOrder } from '../../shared/pagination.js';
import { PRODUCT_INCLUDE } from './products.service.js';

export type ProductListQuery = NonNullable<operations['listProducts']['parameters']['query']>;

const SORT_KEYS: Record<NonNullable<ProductListQuery['sort']>, KeysetOrder['keys']> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  title: [{ field: 'title', kind: 'string' }],
};

/** A page of the project's live products matching the filters, with variants and collection ids. */
export async function listProducts(db: Database, project: Project, query: ProductListQuery) {
  const { cursor, limit, sort = 'created_at', order = 'desc', fields: _fields, ...filters } = query;
  const where: Prisma.ProductWhereInput = {
    projectId: project.id,
    deletedAt: null,
    status: filters.status,
    productType: filters.product_type,
    vendor: filters.vendor,
    tags: filters.tag ? { has: filters.tag } : undefined,
    collections: filters.collection_id ? { some: { collectionId: filters.collection_id } } : undefined,
    createdAt: filters.created_after ? { gt: new Date(filters.created_after) } : undefined,
  };
  return paginate({
    secret: project.signingSecret,
    params: { cursor, limit, order },
    orderBy: { keys: SORT_KEYS[sort], order },
    shape: { filters, sort },
    count: () => db.product.count({ where }),
    fetch: ({ after, orderBy, take }) =>
      db.product.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take, include: PRODUCT_INCLUDE }),
  });
}
