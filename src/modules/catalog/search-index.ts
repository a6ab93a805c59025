import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { reindexProductRows } from './catalog.sql.js';

/**
 * Rebuilds the search documents of the given products inside the caller's transaction (the SQL function
 * search_reindex_products of the search migration): active, live products are searchable with their
 * current fields, variants and collections; drafts, archived and deleted ones leave the index. It lives in the
 * catalog, whose writes call it, rather than in search, which reads the catalog (no cycle between the two areas).
 */
export async function reindexProducts(tx: Tx, ctx: Pick<Ctx, 'project'>, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  const ids = [...new Set(productIds)].sort();
  await reindexProductRows(tx, ctx.project.id, ids);
}

/** Reindexes every product of a collection (its title is part of their documents). */
export async function reindexCollectionProducts(
  tx: Tx,
  ctx: Pick<Ctx, 'project'>,
  collectionId: string,
): Promise<void> {
  const members = await tx.collectionProduct.findMany({ where: { collectionId }, select: { productId: true } });
  await reindexProducts(
    tx,
    ctx,
    members.map((m) => m.productId),
  );
}
