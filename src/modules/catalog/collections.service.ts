import type { Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { recordChange, recordEvent } from '../store-events/index.js';
import { reindexCollectionProducts, reindexProducts } from './search-index.js';
import { toCollectionResource, withProductCount, type CollectionWithCount } from './catalog.mappers.js';

type CollectionCreate = components['schemas']['CollectionCreate'];
type CollectionUpdate = components['schemas']['CollectionUpdate'];
type CollectionListQuery = NonNullable<operations['listCollections']['parameters']['query']>;

const SORTS: SortColumns<'listCollections'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  title: [{ field: 'title', kind: 'string' }],
};
const WITH_COUNT = { _count: { select: { products: { where: { product: { deletedAt: null } } } } } } as const;
// A storefront counts what it can list: active products only.
const WITH_STOREFRONT_COUNT = {
  _count: { select: { products: { where: { product: { deletedAt: null, status: 'active' } } } } },
} as const;
const countFor = (ctx: Ctx) => (isStorefront(ctx) ? WITH_STOREFRONT_COUNT : WITH_COUNT);
const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another collection already has this handle.' } };

/**
 * The project's collection with its count of live products (for a storefront, of active ones); 404
 * "Collection not found." otherwise.
 */
export async function findCollection(ctx: Ctx, db: Ctx['db'] | Tx, id: string): Promise<CollectionWithCount> {
  const row = await findOwned(
    ctx,
    { findUnique: (args) => db.collection.findUnique({ ...args, include: countFor(ctx) }) },
    id,
    'Collection not found.',
  );
  return withProductCount(row);
}

// product_count changes are recorded as collection.updated with that one field.
async function recordCount(tx: Tx, ctx: Ctx, before: CollectionWithCount, after: CollectionWithCount) {
  await recordChange(tx, ctx, {
    type: 'collection.updated',
    resourceType: 'collection',
    resourceId: after.id,
    label: `Collection "${after.title}"`,
    before: toCollectionResource(before),
    after: toCollectionResource(after),
    fields: ['product_count'],
  });
}

/** Creates a collection with a handle unique per project; records collection.created. */
export async function createCollection(ctx: Ctx, input: CollectionCreate): Promise<CollectionWithCount> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const handle = input.handle ?? (await allocateHandle(tx, ctx, 'collection', input.title));
    const created = await tx.collection.create({
      data: {
        id: newId('col_'),
        projectId: ctx.project.id,
        title: input.title,
        handle,
        description: input.description ?? null,
        image: input.image ?? null,
      },
    });
    const collection = { ...created, productCount: 0 };
    await recordEvent(tx, ctx, {
      type: 'collection.created',
      resourceType: 'collection',
      resourceId: collection.id,
      summary: `Collection "${collection.title}" created`,
      payload: toCollectionResource(collection),
    });
    return collection;
  });
}

/** Applies the fields sent; records collection.updated with the changes. */
export async function updateCollection(ctx: Ctx, id: string, input: CollectionUpdate): Promise<CollectionWithCount> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const before = await findCollection(ctx, tx, id);
    await tx.collection.update({
      where: { id },
      data: { title: input.title, handle: input.handle, description: input.description, image: input.image },
    });
    const after = await findCollection(ctx, tx, id);
    if (after.title !== before.title) await reindexCollectionProducts(tx, ctx, id);
    await recordChange(tx, ctx, {
      type: 'collection.updated',
      resourceType: 'collection',
      resourceId: id,
      label: `Collection "${after.title}"`,
      before: toCollectionResource(before),
      after: toCollectionResource(after),
      fields: ['title', 'handle', 'description', 'image'],
    });
    return after;
  });
}

/** Deletes the collection (its products stay); records collection.deleted. */
export async function deleteCollection(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const collection = await findCollection(ctx, tx, id);
    const members = await tx.collectionProduct.findMany({ where: { collectionId: id }, select: { productId: true } });
    await tx.collection.delete({ where: { id } });
    await reindexProducts(
      tx,
      ctx,
      members.map((m) => m.productId),
    );
    await recordEvent(tx, ctx, {
      type: 'collection.deleted',
      resourceType: 'collection',
      resourceId: id,
      summary: `Collection "${collection.title}" deleted`,
      payload: toCollectionResource(collection),
    });
  });
}

/** Adds the products (all must be live products of the project), skipping those already in it. */
export async function addProducts(ctx: Ctx, id: string, productIds: string[]): Promise<CollectionWithCount> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await findCollection(ctx, tx, id);
    const unique = [...new Set(productIds)];
    const found = await tx.product.findMany({
      where: { id: { in: unique }, projectId: ctx.project.id, deletedAt: null },
      select: { id: true },
    });
    const missing = unique.filter((pid) => !found.some((p) => p.id === pid));
    if (missing.length > 0) {
      throw new AppError('invalid_request', `No such product in this project: ${missing.join(', ')}.`, {
        field: 'product_ids',
      });
    }
    await tx.collectionProduct.createMany({
      data: unique.map((productId) => ({ collectionId: id, productId })),
      skipDuplicates: true,
    });
    await reindexProducts(tx, ctx, unique);
    const after = await findCollection(ctx, tx, id);
    await recordCount(tx, ctx, before, after);
    return after;
  });
}

/** Removes one product from the collection; 404 when it is not in it. */
export async function removeProduct(ctx: Ctx, id: string, productId: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const before = await findCollection(ctx, tx, id);
    const { count } = await tx.collectionProduct.deleteMany({ where: { collectionId: id, productId } });
    if (count === 0) throw notFound('The product is not in this collection.');
    await reindexProducts(tx, ctx, [productId]);
    await recordCount(tx, ctx, before, await findCollection(ctx, tx, id));
  });
}

/** A page of the project's collections. */
export async function listCollections(ctx: Ctx, query: CollectionListQuery) {
  const where: Prisma.CollectionWhereInput = { projectId: ctx.project.id };
  const model = {
    findMany: (args: {
      where: Prisma.CollectionWhereInput;
      orderBy: Prisma.CollectionOrderByWithRelationInput[];
      take: number;
    }) => ctx.db.collection.findMany({ ...args, include: countFor(ctx) }),
    count: (args: { where: Prisma.CollectionWhereInput }) => ctx.db.collection.count(args),
  };
  return listPage(ctx, {
    model,
    where,
    query,
    sorts: SORTS,
    map: (row) => toCollectionResource(withProductCount(row)),
    cacheTotals: { list: 'collections', tables: ['collections'] },
  });
}
