import { poolOf, type Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Prisma, Variant } from '../../generated/prisma/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { AppError, conflictOn, notFound, violatesUnique } from '../../shared/errors.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { recordChange, recordEvent } from '../store-events/index.js';
import { reindexProducts } from './search-index.js';
import {
  productForView,
  toProductResource,
  type CatalogView,
  type ProductResource,
  type ProductRow,
} from './catalog.mappers.js';
import { productJsonById, type JsonById } from './products.statements.js';

type ProductCreate = components['schemas']['ProductCreate'];
type ProductUpdate = components['schemas']['ProductUpdate'];
type VariantCreate = components['schemas']['VariantCreate'];

export const PRODUCT_INCLUDE = { variants: true, collections: { select: { collectionId: true } } } as const;
const UPDATABLE_FIELDS = [
  'title',
  'handle',
  'description',
  'status',
  'product_type',
  'vendor',
  'tags',
  'image',
  'metadata',
] as const;
const HANDLE_ATTEMPTS = 5;

/** The unique columns of products and variants, as conflicts. */
export const CATALOG_CONFLICTS = {
  sku: { field: 'sku', message: 'Another variant of this project already has this SKU.' },
  handle: { field: 'handle', message: 'Another product of this project already has this handle.' },
};

/**
 * The live product of the project with variants and collection ids (for storefronts, publishable keys:
 * an active one); 404 "Product not found." otherwise.
 */
export async function findProduct(ctx: Ctx, db: Ctx['db'] | Tx, id: string): Promise<ProductRow> {
  const product = await findOwned(
    ctx,
    { findUnique: (args) => db.product.findUnique({ ...args, include: PRODUCT_INCLUDE }) },
    id,
    'Product not found.',
  );
  if (isStorefront(ctx) && product.status !== 'active') throw notFound('Product not found.');
  return product;
}

/**
 * A catalog resource by id as the caller's view shows it: outside a transaction the JSON text PostgreSQL writes
 * (`read`, products.statements.ts; 404 with `message` when it finds none), inside one `found()`, the row read
 * through Prisma and mapped (which answers the same 404).
 */
export async function shownById<T>(
  ctx: Ctx,
  id: string,
  view: CatalogView,
  read: JsonById,
  found: () => Promise<T>,
  message: string,
): Promise<T> {
  const pool = poolOf(ctx.db);
  if (!pool) return found();
  const json = await read(pool, view, ctx.project.id, id);
  if (json === undefined) throw notFound(message);
  return JSON.parse(json) as T;
}

/** The product as `findProduct` finds it, shown in `view` (404 "Product not found." otherwise). */
export const shownProduct = (ctx: Ctx, id: string, view: CatalogView): Promise<ProductResource> =>
  shownById(
    ctx,
    id,
    view,
    productJsonById,
    async () => productForView(toProductResource(await findProduct(ctx, ctx.db, id)), view),
    'Product not found.',
  );

/** Price and sale price of a product from its variants: the lowest of each (sale price null when none has one). */
export function derivedPrices(variants: Array<Pick<Variant, 'price' | 'salePrice'>>): {
  price: number;
  salePrice: number | null;
} {
  const sales = variants.map((v) => v.salePrice).filter((p): p is number => p !== null);
  return {
    price: variants.length ? Math.min(...variants.map((v) => v.price)) : 0,
    salePrice: sales.length ? Math.min(...sales) : null,
  };
}

/** Rows for new variants, positioned from `firstPosition` on unless they say otherwise. */
export function variantRows(
  projectId: string,
  productId: string,
  variants: VariantCreate[],
  firstPosition = 0,
): Prisma.VariantCreateManyInput[] {
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
async function withHandleRetry<T>(ctx: Ctx, explicitHandle: boolean, write: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeTx(ctx, {}, write); // conflicts mapped below, after the retries
    } catch (error) {
      if (explicitHandle || !violatesUnique(error, 'handle') || attempt >= HANDLE_ATTEMPTS)
        throw conflictOn(error, CATALOG_CONFLICTS);
    }
  }
}

/** Creates a product with its variants and records product.created, in one transaction. */
export async function createProduct(ctx: Ctx, input: ProductCreate): Promise<ProductRow> {
  const projectId = ctx.project.id;
  return withHandleRetry(ctx, input.handle !== undefined, async (tx) => {
    const id = newId('prod_');
    const variants = variantRows(projectId, id, input.variants);
    const prices = derivedPrices(variants.map((v) => ({ price: v.price, salePrice: v.salePrice ?? null })));
    await tx.product.create({
      data: {
        id,
        projectId,
        title: input.title,
        handle: input.handle ?? (await allocateHandle(tx, ctx, 'product', input.title)),
        description: input.description ?? null,
        status: input.status ?? 'active',
        productType: input.product_type ?? null,
        vendor: input.vendor ?? null,
        tags: input.tags ?? [],
        image: input.image ?? null,
        price: prices.price,
        salePrice: prices.salePrice,
        currency: ctx.project.currency,
        metadata: input.metadata ?? {},
      },
    });
    await tx.variant.createMany({ data: variants });
    await reindexProducts(tx, ctx, [id]);
    const product = await findProduct(ctx, tx, id);
    await recordEvent(tx, ctx, {
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
export async function updateProduct(ctx: Ctx, id: string, input: ProductUpdate): Promise<ProductRow> {
  return writeTx(ctx, CATALOG_CONFLICTS, async (tx) => {
    const before = await findProduct(ctx, tx, id);
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
        metadata: input.metadata,
      },
    });
    await reindexProducts(tx, ctx, [id]);
    const after = await findProduct(ctx, tx, id);
    await recordProductUpdate(tx, ctx, before, after);
    return after;
  });
}

/** Records product.updated when the product's API representation changed in the listed fields. */
export async function recordProductUpdate(
  tx: Tx,
  ctx: Ctx,
  before: ProductRow,
  after: ProductRow,
  extraFields: readonly string[] = [],
) {
  await recordChange(tx, ctx, {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: after.id,
    label: `Product "${after.title}"`,
    before: toProductResource(before),
    after: toProductResource(after),
    fields: [...UPDATABLE_FIELDS, 'price', 'sale_price', ...extraFields],
  });
}

/** Soft delete: the product leaves every query and frees its handle; records product.deleted. */
export async function deleteProduct(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const product = await findProduct(ctx, tx, id);
    await tx.product.update({ where: { id }, data: { deletedAt: new Date() } });
    await reindexProducts(tx, ctx, [id]);
    await recordEvent(tx, ctx, {
      type: 'product.deleted',
      resourceType: 'product',
      resourceId: id,
      summary: `Product "${product.title}" deleted`,
      payload: toProductResource(product), // the last state
    });
  });
}

/** Copies a product as a draft (variants without SKUs or stock, same collections) and records product.created. */
export async function duplicateProduct(ctx: Ctx, id: string, title?: string): Promise<ProductRow> {
  const projectId = ctx.project.id;
  return withHandleRetry(ctx, false, async (tx) => {
    const original = await findProduct(ctx, tx, id);
    const copyId = newId('prod_');
    const copyTitle = title ?? original.title;
    const { id: _id, createdAt: _c, updatedAt: _u, deletedAt: _d, variants, collections, ...fields } = original;
    await tx.product.create({
      data: {
        ...fields,
        id: copyId,
        title: copyTitle,
        handle: await allocateHandle(tx, ctx, 'product', copyTitle),
        status: 'draft',
        metadata: fields.metadata as Prisma.InputJsonValue,
      },
    });
    await tx.variant.createMany({
      data: variants.map((v) => ({
        id: newId('var_'),
        projectId,
        productId: copyId,
        title: v.title,
        sku: null,
        price: v.price,
        salePrice: v.salePrice,
        weight: v.weight,
        lowStockThreshold: v.lowStockThreshold,
        inventoryPolicy: v.inventoryPolicy,
        position: v.position,
      })),
    });
    await tx.collectionProduct.createMany({
      data: collections.map((c) => ({ collectionId: c.collectionId, productId: copyId })),
    });
    await reindexProducts(tx, ctx, [copyId]);
    const copy = await findProduct(ctx, tx, copyId);
    await recordEvent(tx, ctx, {
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
