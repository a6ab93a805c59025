import type { Database } from '../../src/db/client.js';
import type { FixtureProduct } from './catalog.js';

/**
 * Inserts the fixture products (one variant per size, stocked) in batches and indexes them; returns their ids in
 * order. `idTag` (a few letters) sets their ids apart from another project's fixtures in the same database.
 */
export async function insertFixtureProducts(
  db: Database,
  projectId: string,
  currency: string,
  products: FixtureProduct[],
  batch = 2000,
  idTag = '',
): Promise<string[]> {
  const ids = products.map((_, i) => `prod_fx${idTag}${String(i).padStart(22 - idTag.length, '0')}`);
  for (let start = 0; start < products.length; start += batch) {
    const slice = products.slice(start, start + batch);
    const sliceIds = ids.slice(start, start + batch);
    const json = JSON.stringify(slice.map((p, i) => ({ ...p, id: sliceIds[i] })));
    await db.$transaction(
      async (tx) => {
        await tx.$executeRaw`
        INSERT INTO products (id, project_id, title, handle, description, status, product_type, vendor, tags, price, currency, metadata, created_at, updated_at)
        SELECT p->>'id', ${projectId}, p->>'title', p->>'id', p->>'description', 'active', p->>'productType', p->>'vendor',
               ARRAY(SELECT jsonb_array_elements_text(p->'tags')), (p->>'price')::int, ${currency}, '{}'::jsonb, now(), now()
        FROM jsonb_array_elements(${json}::jsonb) AS p`;
        await tx.$executeRaw`
        INSERT INTO variants (id, project_id, product_id, title, sku, price, inventory_quantity, position, created_at, updated_at)
        SELECT 'var_' || substr(p->>'id', 6) || '_' || v.n, ${projectId}, p->>'id', v.title, NULL, (p->>'price')::int, (v.n % 3) * 5, v.n, now(), now()
        FROM jsonb_array_elements(${json}::jsonb) AS p, jsonb_array_elements_text(p->'variants') WITH ORDINALITY AS v(title, n)`;
        await tx.$executeRaw`SELECT search_reindex_products(${sliceIds}::text[])`;
      },
      { timeout: 120_000 },
    ); // a batch of thousands of products, on a machine that may be busy
  }
  await db.$executeRawUnsafe('ANALYZE search_products; ANALYZE search_terms; ANALYZE search_title_words');
  return ids;
}
