import type { Tx } from '../../db/client.js';

/** The catalog's hand-written statement (tagged raw SQL, values bound), beside its prepared ones in products.statements.ts. */

/** Rebuilds the search documents of the project's products among `ids` (the SQL function search_reindex_products). */
export async function reindexProductRows(tx: Tx, projectId: string, ids: string[]): Promise<void> {
  await tx.$executeRaw`SELECT search_reindex_products(ARRAY(SELECT id FROM products WHERE id = ANY(${ids}::text[]) AND project_id = ${projectId}))`;
}
