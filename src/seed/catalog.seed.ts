import type { Database } from '../db/client.js';

const TYPES = ['Shoes', 'Jackets', 'Backpacks', 'Tents', 'Accessories', 'Shirts', 'Pants', 'Gloves'];
const VENDORS = ['Northpeak', 'Stormline', 'Carryall', 'Basecamp', 'Fjellgear'];
const WORDS = ['Trail', 'Summit', 'Ridge', 'Storm', 'Alpine', 'Canyon', 'Forest', 'Glacier', 'Harbor', 'Meadow'];

/**
 * Inserts `count` products with two variants each (unique SKUs) and stock at the project's default
 * location, in batches straight in SQL, for benchmarks and large-catalog work. No store events.
 */
export async function seedCatalog(
  db: Database,
  projectId: string,
  count: number,
  options: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const batchSize = options.batchSize ?? 5_000;
  const project = await db.project.findUniqueOrThrow({ where: { id: projectId } });
  const location = await db.location.findFirstOrThrow({ where: { projectId, isDefault: true, deletedAt: null } });
  const run = Date.now().toString(36);
  for (let start = 0; start < count; start += batchSize) {
    const end = Math.min(count, start + batchSize);
    await db.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO products (id, project_id, title, handle, status, product_type, vendor, tags, price, currency, metadata, created_at, updated_at)
        SELECT 'prod_' || substr(md5(${run} || i::text), 1, 26), ${projectId},
               (${WORDS}::text[])[1 + i % 10] || ' ' || (${TYPES}::text[])[1 + (i / 10) % 8] || ' ' || i,
               'seed-' || ${run} || '-' || i, 'active', (${TYPES}::text[])[1 + (i / 10) % 8], (${VENDORS}::text[])[1 + i % 5],
               ARRAY['seed'], 1000 + (i % 200) * 100, ${project.currency}, '{}'::jsonb, now() - make_interval(secs => i), now()
        FROM generate_series(${start + 1}::int, ${end}::int) AS i`;
      await tx.$executeRaw`
        INSERT INTO variants (id, project_id, product_id, title, sku, price, weight, inventory_quantity, position, created_at, updated_at)
        SELECT 'var_' || substr(md5(${run} || i::text || '-' || v::text), 1, 26), ${projectId}, 'prod_' || substr(md5(${run} || i::text), 1, 26),
               CASE v WHEN 0 THEN 'Small' ELSE 'Large' END, 'SEED-' || ${run} || '-' || i || '-' || v,
               1000 + (i % 200) * 100 + v * 500, 500, 10 + (i + v) % 50, v, now(), now()
        FROM generate_series(${start + 1}::int, ${end}::int) AS i, generate_series(0, 1) AS v`;
      await tx.$executeRaw`
        INSERT INTO inventory_levels (variant_id, location_id, project_id, available, updated_at)
        SELECT 'var_' || substr(md5(${run} || i::text || '-' || v::text), 1, 26), ${location.id}, ${projectId}, 10 + (i + v) % 50, now()
        FROM generate_series(${start + 1}::int, ${end}::int) AS i, generate_series(0, 1) AS v`;
      // The search documents of the new products, in the same transaction (as every catalog write).
      await tx.$executeRaw`SELECT search_reindex_products(ARRAY(
        SELECT 'prod_' || substr(md5(${run} || i::text), 1, 26) FROM generate_series(${start + 1}::int, ${end}::int) AS i))`;
    });
    options.onProgress?.(end, count);
  }
  await db.$executeRawUnsafe(
    'ANALYZE products; ANALYZE variants; ANALYZE inventory_levels; ANALYZE search_products; ANALYZE search_terms',
  );
}
