import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';

/**
 * Rebuilds the search documents of the given products inside the caller's transaction (the SQL function
 * search_reindex_products of the search migration): active, live products are searchable with their
 * current fields, variants and collections; drafts, archived and deleted ones leave the index. It lives in the
 * catalog, whose writes call it, rather than in search, which reads the catalog (no cycle between the two areas).
 */
export async function reindexProducts(tx: Tx, ctx: Pick<Ctx, 'project'>, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  const ids = [...new Set(productIds)].sort();
  await tx.$executeRaw`SELECT search_reindex_products(ARRAY(SELECT id FROM products WHERE id = ANY(${ids}::text[]) AND project_id = ${ctx.project.id}))`;
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
