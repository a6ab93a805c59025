import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import type { ReferenceKind } from './value-types.js';

export type OwnerType = components['schemas']['MetafieldOwnerType'];

const OWNER_NOT_FOUND: Record<OwnerType, string> = {
  product: 'Product not found.',
  variant: 'Variant not found.',
  collection: 'Collection not found.',
  customer: 'Customer not found.',
  order: 'Order not found.',
};

/**
 * The ids among `ids` that name, in the project, a resource of `kind` that is not deleted (products not
 * deleted, variants of products not deleted, customers not deleted) or a registered file of that kind
 * (images `img_`, files `file_`, videos `file_` with a video/* MIME type); `activeOnly` also requires
 * active products. One query.
 */
export async function existingIds(
  db: Database | Tx,
  projectId: string,
  kind: ReferenceKind,
  ids: string[],
  activeOnly = false,
): Promise<Set<string>> {
  const id = { in: [...new Set(ids)] };
  const select = { id: true } as const;
  const product = { deletedAt: null, ...(activeOnly && { status: 'active' }) };
  const rows: Array<{ id: string }> = await (() => {
    switch (kind) {
      case 'product':
        return db.product.findMany({ where: { id, projectId, ...product }, select });
      case 'variant':
        return db.variant.findMany({ where: { id, projectId, product }, select });
      case 'collection':
        return db.collection.findMany({ where: { id, projectId }, select });
      case 'customer':
        return db.customer.findMany({ where: { id, projectId, deletedAt: null }, select });
      case 'order':
        return db.order.findMany({ where: { id, projectId }, select });
      case 'image':
        return db.file.findMany({ where: { id: { ...id, startsWith: 'img_' }, projectId }, select });
      case 'file':
        return db.file.findMany({ where: { id: { ...id, startsWith: 'file_' }, projectId }, select });
      case 'video':
        return db.file.findMany({
          where: { id: { ...id, startsWith: 'file_' }, projectId, mimeType: { startsWith: 'video/' } },
          select,
        });
    }
  })();
  return new Set(rows.map((row) => row.id));
}

/** 404 ("Product not found.", ...) unless the owner is a live resource of the project the caller may see. */
export async function requireOwner(ctx: Ctx, db: Database | Tx, ownerType: OwnerType, ownerId: string): Promise<void> {
  const found = await existingIds(db, ctx.project.id, ownerType, [ownerId], isStorefront(ctx));
  if (!found.has(ownerId)) throw notFound(OWNER_NOT_FOUND[ownerType]);
}
