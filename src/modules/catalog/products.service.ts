import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Prisma, Variant } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { AppError, conflictOn, ownedOrNotFound, violatesUnique } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { actorOf, changedFields, recordStoreEvent } from '../store-events/store-events.recorder.js';
import { toProductResource, type ProductRow } from './catalog.mappers.js';
import { allocateHandle } from './handles.js';

type ProductCreate = components['schemas']['ProductCreate'];
type ProductUpdate = components['schemas']['ProductUpdate'];
type VariantCreate = components['schemas']['VariantCreate'];

export const PRODUCT_INCLUDE = { variants: true, collections: { select: { collectionId: true } } } as const;
const UPDATABLE_FIELDS = ['title', 'handle', 'description', 'status', 'product_type', 'vendor', 'tags', 'image', 'metadata'] as const;
const HANDLE_ATTEMPTS = 5;

/** The unique columns of products and variants, as conflicts. */
export const CATALOG_CONFLICTS = {
  sku: { field: 'sku', message: 'Another variant of this project already has this SKU.' },
  handle: { field: 'handle', message: 'Another product of this project already has this handle.' },
};

/** The live product of the project with variants and collection ids; 404 "Product not found." otherwise. */
export async function findProduct(db: Database | Tx, projectId: string, id: string): Promise<ProductRow> {
  return ownedOrNotFound(await db.product.findUnique({ where: { id }, include: PRODUCT_INCLUDE }), projectId, 'Product not found.');
}

/** A handle free among the project's live products, generated from the title (acme, acme-2, ...). */
async function freeHandle(tx: Tx, projectId: string, title: string): Promise<string> {
  return allocateHandle(tx, 'product', projectId, title, async (base) =>
    (await tx.product.findMany({ where: { projectId, deletedAt: null, handle: { startsWith: base } }, select: { handle: true } })).map((p) => p.handle),
  );
}

/** Price and sale price of a product from its variants: the lowest of each (sale price null when none has one). */
export function derivedPrices(variants: Array<Pick<Variant, 'price' | 'salePrice'>>): { price: number; salePrice: number | null } {
  const sales = variants.map((v) => v.salePrice).filter((p): p is number => p !== null);
  return { price: variants.length ? Math.min(...variants.map((v) => v.price)) : 0, salePrice: sales.length ? Math.min(...sales) : null };
}

/** Rows for new variants, positioned from `firstPosition` on unless they say otherwise. */
export function variantRows(projectId: string, productId: string, variants: VariantCreate[], firstPosition = 0): Prisma.VariantCreateManyInput[] {
  return variants.map((v, index) => ({
    id: newId('var_'),
    projectId,
    productId,
    title: v.title,
    sku: v.sku ?? null,
    price: v.price,
    salePrice: v.sale_price ?? null,
    weight: v.weight ?? 0,
    lowStockThreshold: v.low_stock_threshold ?? null,
    inventoryPolicy: v.inventory_policy ?? 'deny',
    position: v.position ?? firstPosition + index,
  }));
}

/**
 * Runs a write that may pick a generated handle; two writers racing for the same handle make one of
 * them hit the unique index, and it tries again with the next free one.
 */
async function withHandleRetry<T>(db: Database, explicitHandle: boolean, write: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(write);
    } catch (error) {
      if (explicitHandle || !violatesUnique(error, 'handle') || attempt >= HANDLE_ATTEMPTS) throw conflictOn(error, CATALOG_CONFLICTS);
    }
  }
}

/** Creates a product with its variants and records product.created, in one transaction. */
export async function createProduct(db: Database, caller: KeyCaller, input: ProductCreate): Promise<ProductRow> {
  const projectId = caller.project.id;
  return withHandleRetry(db, input.handle !== undefined, async (tx) => {
    const id = newId('prod_');
    const variants = variantRows(projectId, id, input.variants);
    const prices = derivedPrices(variants.map((v) => ({ price: v.price, salePrice: v.salePrice ?? null })));
    await tx.product.create({
      data: {
        id,
        projectId,
        title: input.title,
        handle: input.handle ?? (await freeHandle(tx, projectId, input.title)),
        description: input.description ?? null,
        status: input.status ?? 'active',
        productType: input.product_type ?? null,
        vendor: input.vendor ?? null,
        tags: input.tags ?? [],
        image: input.image ?? null,
        price: prices.price,
        salePrice: prices.salePrice,
        currency: caller.project.currency,
        metadata: (input.metadata ?? {}) as Prisma.InputJsonValue,
      },
    });
    await tx.variant.createMany({ data: variants });
    const product = await findProduct(tx, projectId, id);
    await recordStoreEvent(tx, projectId, actorOf(caller), {
      type: 'product.created',
      resourceType: 'product',
      resourceId: id,
      summary: `Product "${product.title}" created`,
      payload: toProductResource(product),
    });
    return product;
  });
}

/** Applies the fields sent and records product.updated with the changed fields (nothing when nothing changed). */
export async function updateProduct(db: Database, caller: KeyCaller, id: string, input: ProductUpdate): Promise<ProductRow> {
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const before = await findProduct(tx, projectId, id);
      await tx.product.update({
        where: { id },
        data: {
          title: input.title,
          handle: input.handle,
          description: input.description,
          status: input.status,
          productType: input.product_type,
          vendor: input.vendor,
          tags: input.tags,
          image: input.image,
          metadata: input.metadata as Prisma.InputJsonValue | undefined,
        },
      });
      const after = await findProduct(tx, projectId, id);
      await recordProductUpdate(tx, caller, before, after);
      return after;
    });
  } catch (error) {
    throw conflictOn(error, CATALOG_CONFLICTS);
  }
}

/** Records product.updated when the product's API representation changed in the listed fields. */
export async function recordProductUpdate(tx: Tx, caller: KeyCaller, before: ProductRow, after: ProductRow, extraFields: readonly string[] = []) {
  const changes = changedFields(toProductResource(before), toProductResource(after), [...UPDATABLE_FIELDS, 'price', 'sale_price', ...extraFields]);
  if (Object.keys(changes).length === 0) return;
  await recordStoreEvent(tx, caller.project.id, actorOf(caller), {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: after.id,
    summary: `Product "${after.title}" updated (${Object.keys(changes).join(', ')})`,
    changes,
    payload: toProductResource(after),
  });
}

/** Soft delete: the product leaves every query and frees its handle; records product.deleted. */
export async function deleteProduct(db: Database, caller: KeyCaller, id: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const product = await findProduct(tx, caller.project.id, id);
    await tx.product.update({ where: { id }, data: { deletedAt: new Date() } });
    await recordStoreEvent(tx, caller.project.id, actorOf(caller), {
      type: 'product.deleted',
      resourceType: 'product',
      resourceId: id,
      summary: `Product "${product.title}" deleted`,
    });
  });
}

/** Copies a product as a draft (variants without SKUs or stock, same collections) and records product.created. */
export async function duplicateProduct(db: Database, caller: KeyCaller, id: string, title?: string): Promise<ProductRow> {
  const projectId = caller.project.id;
  return withHandleRetry(db, false, async (tx) => {
    const original = await findProduct(tx, projectId, id);
    const copyId = newId('prod_');
    const copyTitle = title ?? original.title;
    const { id: _id, createdAt: _c, updatedAt: _u, deletedAt: _d, variants, collections, ...fields } = original;
    await tx.product.create({
      data: { ...fields, id: copyId, title: copyTitle, handle: await freeHandle(tx, projectId, copyTitle), status: 'draft', metadata: fields.metadata as Prisma.InputJsonValue },
    });
    await tx.variant.createMany({
      data: variants.map((v) => ({
        id: newId('var_'), projectId, productId: copyId, title: v.title, sku: null, price: v.price, salePrice: v.salePrice,
        weight: v.weight, lowStockThreshold: v.lowStockThreshold, inventoryPolicy: v.inventoryPolicy, position: v.position,
      })),
    });
    await tx.collectionProduct.createMany({ data: collections.map((c) => ({ collectionId: c.collectionId, productId: copyId })) });
    const copy = await findProduct(tx, projectId, copyId);
    await recordStoreEvent(tx, projectId, actorOf(caller), {
      type: 'product.created',
      resourceType: 'product',
      resourceId: copyId,
      summary: `Product "${copy.title}" created as a copy of ${id}`,
      payload: toProductResource(copy),
    });
    return copy;
  });
}

/** Recomputes the product's derived prices from its variants. */
export async function syncProductPrices(tx: Tx, productId: string): Promise<void> {
  const variants = await tx.variant.findMany({ where: { productId }, select: { price: true, salePrice: true } });
  await tx.product.update({ where: { id: productId }, data: derivedPrices(variants) });
}

export const lastVariantError = () =>
  new AppError('invalid_request', 'A product needs at least one variant. Delete the product instead.');
