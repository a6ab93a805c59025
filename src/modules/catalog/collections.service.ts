import type { Database, Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { Collection, Prisma, Project } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { AppError, conflictOn, notFound, ownedOrNotFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { paginate, type KeysetOrder } from '../../shared/pagination.js';
import { actorOf, changedFields, recordStoreEvent } from '../store-events/store-events.recorder.js';
import { allocateHandle } from './handles.js';

type CollectionCreate = components['schemas']['CollectionCreate'];
type CollectionUpdate = components['schemas']['CollectionUpdate'];
type CollectionListQuery = NonNullable<operations['listCollections']['parameters']['query']>;
export type CollectionResource = components['schemas']['Collection'];
export type CollectionWithCount = Collection & { productCount: number };

const SORT_KEYS: Record<'created_at' | 'updated_at' | 'title', KeysetOrder['keys']> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  title: [{ field: 'title', kind: 'string' }],
};
const LIVE_PRODUCTS = { where: { product: { deletedAt: null } } } as const;

/** A collection as the API shows it. */
export function toCollectionResource(collection: CollectionWithCount): CollectionResource {
  return {
    id: collection.id,
    title: collection.title,
    handle: collection.handle,
    description: collection.description,
    image: collection.image,
    product_count: collection.productCount,
    created_at: collection.createdAt.toISOString(),
    updated_at: collection.updatedAt.toISOString(),
  };
}

/** The project's collection with its count of live products; 404 "Collection not found." otherwise. */
export async function findCollection(db: Database | Tx, projectId: string, id: string): Promise<CollectionWithCount> {
  const collection = await db.collection.findUnique({ where: { id }, include: { _count: { select: { products: LIVE_PRODUCTS } } } });
  const { _count, ...row } = ownedOrNotFound(collection, projectId, 'Collection not found.');
  return { ...row, productCount: _count.products };
}

const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another collection already has this handle.' } };

async function record(tx: Tx, caller: KeyCaller, type: string, collection: CollectionWithCount, changes?: ReturnType<typeof changedFields>) {
  await recordStoreEvent(tx, caller.project.id, actorOf(caller), {
    type,
    resourceType: 'collection',
    resourceId: collection.id,
    summary: `Collection "${collection.title}" ${type.split('.')[1]}${changes ? ` (${Object.keys(changes).join(', ')})` : ''}`,
    changes,
    payload: toCollectionResource(collection),
  });
}

/** Creates a collection with a handle unique per project; records collection.created. */
export async function createCollection(db: Database, caller: KeyCaller, input: CollectionCreate): Promise<CollectionWithCount> {
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const handle =
        input.handle ??
        (await allocateHandle(tx, 'collection', projectId, input.title, async (base) =>
          (await tx.collection.findMany({ where: { projectId, handle: { startsWith: base } }, select: { handle: true } })).map((c) => c.handle),
        ));
      const created = await tx.collection.create({
        data: { id: newId('col_'), projectId, title: input.title, handle, description: input.description ?? null, image: input.image ?? null },
      });
      const collection = { ...created, productCount: 0 };
      await record(tx, caller, 'collection.created', collection);
      return collection;
    });
  } catch (error) {
    throw conflictOn(error, HANDLE_TAKEN);
  }
}

/** Applies the fields sent; records collection.updated with the changes. */
export async function updateCollection(db: Database, caller: KeyCaller, id: string, input: CollectionUpdate): Promise<CollectionWithCount> {
  try {
    return await db.$transaction(async (tx) => {
      const before = await findCollection(tx, caller.project.id, id);
      await tx.collection.update({ where: { id }, data: { title: input.title, handle: input.handle, description: input.description, image: input.image } });
      const after = await findCollection(tx, caller.project.id, id);
      const changes = changedFields(toCollectionResource(before), toCollectionResource(after), ['title', 'handle', 'description', 'image']);
      if (Object.keys(changes).length > 0) await record(tx, caller, 'collection.updated', after, changes);
      return after;
    });
  } catch (error) {
    throw conflictOn(error, HANDLE_TAKEN);
  }
}

/** Deletes the collection (its products stay); records collection.deleted. */
export async function deleteCollection(db: Database, caller: KeyCaller, id: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const collection = await findCollection(tx, caller.project.id, id);
    await tx.collection.delete({ where: { id } });
    await record(tx, caller, 'collection.deleted', collection);
  });
}

/** Adds the products (all must be live products of the project), skipping those already in it. */
export async function addProducts(db: Database, caller: KeyCaller, id: string, productIds: string[]): Promise<CollectionWithCount> {
  const projectId = caller.project.id;
  return db.$transaction(async (tx) => {
    const before = await findCollection(tx, projectId, id);
    const unique = [...new Set(productIds)];
    const found = await tx.product.findMany({ where: { id: { in: unique }, projectId, deletedAt: null }, select: { id: true } });
    const missing = unique.filter((pid) => !found.some((p) => p.id === pid));
    if (missing.length > 0) {
      throw new AppError('invalid_request', `No such product in this project: ${missing.join(', ')}.`, { field: 'product_ids' });
    }
    await tx.collectionProduct.createMany({ data: unique.map((productId) => ({ collectionId: id, productId })), skipDuplicates: true });
    const after = await findCollection(tx, projectId, id);
    if (after.productCount !== before.productCount) {
      await record(tx, caller, 'collection.updated', after, { product_count: { from: before.productCount, to: after.productCount } });
    }
    return after;
  });
}

/** Removes one product from the collection; 404 when it is not in it. */
export async function removeProduct(db: Database, caller: KeyCaller, id: string, productId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const before = await findCollection(tx, caller.project.id, id);
    const { count } = await tx.collectionProduct.deleteMany({ where: { collectionId: id, productId } });
    if (count === 0) throw notFound('The product is not in this collection.');
    const after = await findCollection(tx, caller.project.id, id);
    await record(tx, caller, 'collection.updated', after, { product_count: { from: before.productCount, to: after.productCount } });
  });
}

/** A page of the project's collections. */
export async function listCollections(db: Database, project: Project, query: CollectionListQuery) {
  const { cursor, limit, sort = 'created_at', order = 'desc' } = query;
  const where: Prisma.CollectionWhereInput = { projectId: project.id };
  const page = await paginate({
    secret: project.signingSecret,
    params: { cursor, limit, order },
    orderBy: { keys: SORT_KEYS[sort], order },
    shape: { sort },
    count: () => db.collection.count({ where }),
    fetch: ({ after, orderBy, take }) =>
      db.collection.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take, include: { _count: { select: { products: LIVE_PRODUCTS } } } }),
  });
  return { ...page, rows: page.rows.map(({ _count, ...row }) => ({ ...row, productCount: _count.products })) };
}
