import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Variant } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { conflictOn, notFound, ownedOrNotFound } from '../../shared/errors.js';
import { CATALOG_CONFLICTS, findProduct, lastVariantError, recordProductUpdate, syncProductPrices, variantRows } from './products.service.js';

type VariantCreate = components['schemas']['VariantCreate'];
type VariantUpdate = components['schemas']['VariantUpdate'];

/** A variant of a live product of the project; 404 "Variant not found." otherwise. */
export async function findVariant(db: Database | Tx, projectId: string, id: string): Promise<Variant> {
  const variant = await db.variant.findUnique({ where: { id }, include: { product: { select: { deletedAt: true } } } });
  const { product, ...row } = ownedOrNotFound(variant, projectId, 'Variant not found.');
  // A deleted product's variants are gone with it.
  if (product.deletedAt) throw notFound('Variant not found.');
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
    throw conflictOn(error, CATALOG_CONFLICTS);
  }
}

/** Adds a variant at the end, or at `position`. */
export async function createVariant(db: Database, caller: KeyCaller, productId: string, input: VariantCreate): Promise<Variant> {
  return changingProduct(db, caller, productId, async (tx) => {
    const last = await tx.variant.aggregate({ where: { productId }, _max: { position: true } });
    const [row] = variantRows(caller.project.id, productId, [input], (last._max.position ?? -1) + 1);
    return tx.variant.create({ data: row });
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
        inventoryPolicy: input.inventory_policy,
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
