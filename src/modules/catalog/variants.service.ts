import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Variant } from '../../generated/prisma/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { reindexProducts } from './search-index.js';
import {
  CATALOG_CONFLICTS,
  findProduct,
  lastVariantError,
  recordProductUpdate,
  shownById,
  syncProductPrices,
  variantRows,
} from './products.service.js';
import { toVariantResource, variantForView, type CatalogView, type VariantResource } from './catalog.mappers.js';
import { variantJsonById } from './products.statements.js';

type VariantCreate = components['schemas']['VariantCreate'];
type VariantUpdate = components['schemas']['VariantUpdate'];

/** A variant of a live product of the project (for storefronts: of an active one); 404 "Variant not found." otherwise. */
export async function findVariant(ctx: Ctx, db: Ctx['db'] | Tx, id: string): Promise<Variant> {
  // A deleted product's variants are gone with it: the product's deletedAt counts as the variant's.
  const { product, ...variant } = await findOwned(
    ctx,
    {
      findUnique: async (args) => {
        const row = await db.variant.findUnique({
          ...args,
          include: { product: { select: { deletedAt: true, status: true } } },
        });
        return row && { ...row, deletedAt: row.product.deletedAt };
      },
    },
    id,
    'Variant not found.',
  );
  if (isStorefront(ctx) && product.status !== 'active') throw notFound('Variant not found.');
  const { deletedAt: _deleted, ...row } = variant;
  return row;
}

/** The variant as `findVariant` finds it, shown in `view` (404 "Variant not found." otherwise). */
export const shownVariant = (ctx: Ctx, id: string, view: CatalogView): Promise<VariantResource> =>
  shownById(
    ctx,
    id,
    view,
    variantJsonById,
    async () => variantForView(toVariantResource(await findVariant(ctx, ctx.db, id)), view),
    'Variant not found.',
  );

/** Runs a variant change and keeps the product's derived prices, recording product.updated with what changed. */
async function changingProduct<T>(ctx: Ctx, productId: string, change: (tx: Tx) => Promise<T>): Promise<T> {
  return writeTx(ctx, CATALOG_CONFLICTS, async (tx) => {
    const before = await findProduct(ctx, tx, productId);
    const result = await change(tx);
    await syncProductPrices(tx, productId);
    await reindexProducts(tx, ctx, [productId]);
    await recordProductUpdate(tx, ctx, before, await findProduct(ctx, tx, productId), ['variants']);
    return result;
  });
}

/** Adds a variant at the end, or at `position`. */
export async function createVariant(ctx: Ctx, productId: string, input: VariantCreate): Promise<Variant> {
  return changingProduct(ctx, productId, async (tx) => {
    const last = await tx.variant.aggregate({ where: { productId }, _max: { position: true } });
    const [row] = variantRows(ctx.project.id, productId, [input], (last._max.position ?? -1) + 1);
    return tx.variant.create({ data: row });
  });
}

/** Applies the fields sent to the variant. */
export async function updateVariant(ctx: Ctx, id: string, input: VariantUpdate): Promise<Variant> {
  const variant = await findVariant(ctx, ctx.db, id);
  return changingProduct(ctx, variant.productId, (tx) =>
    tx.variant.update({
      where: { id },
      data: {
        title: input.title,
        sku: input.sku,
        price: input.price,
        salePrice: input.sale_price,
        weight: input.weight,
        lowStockThreshold: input.low_stock_threshold,
        inventoryPolicy: input.inventory_policy,
        position: input.position,
      },
    }),
  );
}

/** Deletes the variant and its inventory levels; a product's last variant cannot be deleted (400). */
export async function deleteVariant(ctx: Ctx, id: string): Promise<void> {
  const variant = await findVariant(ctx, ctx.db, id);
  await changingProduct(ctx, variant.productId, async (tx) => {
    if ((await tx.variant.count({ where: { productId: variant.productId } })) <= 1) throw lastVariantError();
    await tx.variant.delete({ where: { id } });
  });
}
