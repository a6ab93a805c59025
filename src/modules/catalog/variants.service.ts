import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Variant } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findProduct, lastVariantError, recordProductUpdate, syncProductPrices, uniqueViolation } from './products.service.js';

type VariantCreate = components['schemas']['VariantCreate'];
type VariantUpdate = components['schemas']['VariantUpdate'];

const skuTaken = (error: unknown): never => {
  if (uniqueViolation(error) === 'sku') throw conflict('Another variant of this project already has this SKU.', 'sku');
  throw error;
};

/** A variant of a live product of the project; 404 "Variant not found." otherwise. */
export async function findVariant(db: Database | Tx, projectId: string, id: string): Promise<Variant> {
  const variant = await db.variant.findUnique({ where: { id }, include: { product: { select: { deletedAt: true } } } });
  if (!variant || variant.projectId !== projectId || variant.product.deletedAt) throw notFound('Variant not found.');
  const { product: _product, ...row } = variant;
  return row;
}

/** Runs a variant change and keeps the product's derived prices, recording product.updated with what changed. */
async function changingProduct<T>(db: Database, caller: KeyCaller, productId: string, change: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(async (tx) => {
      const before = await findProduct(tx, caller.project.id, productId);
      const result = await change(tx);
      await syncProductPrices(tx, productId);
      await recordProductUpdate(tx, caller, before, await findProduct(tx, caller.project.id, productId), ['variants']);
      return result;
    });
  } catch (error) {
    return skuTaken(error);
  }
}

/** Adds a variant at the end, or at `position`. */
export async function createVariant(db: Database, caller: KeyCaller, productId: string, input: VariantCreate): Promise<Variant> {
  return changingProduct(db, caller, productId, async (tx) => {
    const last = await tx.variant.aggregate({ where: { productId }, _max: { position: true } });
    return tx.variant.create({
      data: {
        id: newId('var_'),
        projectId: caller.project.id,
        productId,
        title: input.title,
        sku: input.sku ?? null,
        price: input.price,
        salePrice: input.sale_price ?? null,
        weight: input.weight ?? 0,
        lowStockThreshold: input.low_stock_threshold ?? null,
        position: input.position ?? (last._max.position ?? -1) + 1,
      },
    });
  });
}

/** Applies the fields sent to the variant. */
export async function updateVariant(db: Database, caller: KeyCaller, id: string, input: VariantUpdate): Promise<Variant> {
  const variant = await findVariant(db, caller.project.id, id);
  return changingProduct(db, caller, variant.productId, (tx) =>
    tx.variant.update({
      where: { id },
      data: {
        title: input.title,
        sku: input.sku,
        price: input.price,
        salePrice: input.sale_price,
        weight: input.weight,
        lowStockThreshold: input.low_stock_threshold,
        position: input.position,
      },
    }),
  );
}

/** Deletes the variant and its inventory levels; a product's last variant cannot be deleted (400). */
export async function deleteVariant(db: Database, caller: KeyCaller, id: string): Promise<void> {
  const variant = await findVariant(db, caller.project.id, id);
  await changingProduct(db, caller, variant.productId, async (tx) => {
    if ((await tx.variant.count({ where: { productId: variant.productId } })) <= 1) throw lastVariantError();
    await tx.variant.delete({ where: { id } });
  });
}
