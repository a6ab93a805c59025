import { describe, expect, test } from '@jest/globals';
import { productForView, toProductResource, type CatalogView } from '../../../src/modules/catalog/catalog.mappers.js';
import { PRODUCT_INCLUDE } from '../../../src/modules/catalog/products.service.js';
import { poolOf } from '../../../src/db/client.js';
import { productJsonById, productList, variantJsonById } from '../../../src/modules/catalog/products.statements.js';
import { sql } from '../../../src/shared/sql-list.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createDefinition } from '../../factories/metafield.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { newestFirstPage } from '../../setup/pages.js';
import { useStore } from '../../setup/store.js';

// The product list sends each product's JSON as PostgreSQL writes it (products.statements.ts), not the mappers'
// output: these tests hold that text to toProductResource and productForView, member order included.
const store = useStore();

const NEWEST_FIRST = newestFirstPage(100);

/** A catalog with the cases the JSON has to get right: unicode and escapes, nulls, no variants, ties, odd times. */
async function seedCatalog() {
  const shop = await createProject(store.app, { extensions: ['custom_data'] });
  const api = store.app.client(shop.keys.secret_test.token);
  const db = store.app.deps.db;
  const full = await createProduct(api, {
    title: 'Zoë\'s "Trail" \\ Runner ✓ 😀',
    description: 'Line one\nline two\ttabbed \u0001\u001f \u2028 end',
    product_type: 'Schuhe',
    vendor: 'Åkesson & Söner',
    tags: ['ünï', 'a,b', 'quote"d', '😀'],
    image: 'https://cdn.example.com/trail.png',
    metadata: { schlüssel: 'wert "x"\n', big: 12345678901234, ratio: 0.25, negative: -0.001, emoji: '😀', yes: true },
    variants: [
      { title: 'EU 42', sku: 'TR-42', price: 12900, sale_price: 9900, weight: 640, low_stock_threshold: 3 },
      { title: 'EU 43 „groß“', price: 11900, inventory_policy: 'continue' },
      { title: 'EU 44', sku: 'TR-44', price: 13900 },
    ],
  });
  const [first, second, third] = full.variants.map((variant) => variant.id);
  // Stock on one variant, two variants tied on position (the id breaks the tie), times the mappers show in full.
  await db.$executeRaw`UPDATE variants SET inventory_quantity = 7, created_at = '1999-12-31T23:59:59.999Z' WHERE id = ${first}`;
  await db.$executeRaw`UPDATE variants SET position = 5, updated_at = '2024-02-29T12:00:00.001+05:30' WHERE id IN (${second}, ${third})`;
  for (const title of ['Zeta', 'Alpha']) {
    const collection = (await api.POST('/v1/collections', { body: { title } })).data!.data;
    await api.POST('/v1/collections/{id}/products', { ...byId(collection.id), body: { product_ids: [full.id] } });
  }
  // Every nullable member null, no tags, empty metadata, a draft; then without variants.
  const bare = await createProduct(api, {
    title: 'Bare',
    description: null,
    product_type: null,
    vendor: null,
    image: null,
    tags: [],
    status: 'draft',
  });
  await db.$executeRaw`DELETE FROM variants WHERE product_id = ${bare.id}`;
  const archived = await createProduct(api, { title: 'Archived', status: 'archived', metadata: { erp: 'A-1' } });
  // Metadata the API no longer accepts but a row may hold: nested, numbers PostgreSQL writes unlike JSON.stringify.
  await db.$executeRaw`UPDATE products SET metadata = '{"nested": {"list": [1.0, 1e2, null, "ß"], "empty": {}}, "a": 1.50}'::jsonb WHERE id = ${archived.id}`;
  await createProduct(api, { title: 'Deleted' }).then((deleted) => api.DELETE('/v1/products/{id}', byId(deleted.id)));
  return { shop, api, ids: [full.id, bare.id, archived.id] };
}

describe('listProducts: each product as PostgreSQL writes its JSON', () => {
  test('every product text parses to the mappers’ resource, members in the same order, in both views; the storefront text is JSON.stringify’s byte for byte', async () => {
    const { shop, ids } = await seedCatalog();
    const db = store.app.deps.db;
    const rows = await db.product.findMany({ where: { projectId: shop.project.id }, include: PRODUCT_INCLUDE });
    const prismaRows = new Map(rows.map((row) => [row.id, row]));
    for (const view of ['merchant', 'storefront'] as CatalogView[]) {
      const listed = await productList(db, view, shop.project.id, [sql`deleted_at IS NULL`]).fetch(NEWEST_FIRST);
      expect(listed.map((row) => row.id).sort()).toEqual([...ids].sort());
      for (const row of listed) {
        const prisma = prismaRows.get(row.id)!;
        const expected = JSON.stringify(productForView(toProductResource(prisma), view));
        expect(JSON.stringify(JSON.parse(row.json))).toBe(expected);
        // The storefront view embeds no jsonb (no metadata), whose text PostgreSQL spaces its own way.
        if (view === 'storefront') expect(row.json).toBe(expected);
        expect(row.createdAt).toEqual(prisma.createdAt);
        expect(row.updatedAt).toEqual(prisma.updatedAt);
        expect(row.title).toBe(prisma.title);
      }
    }
  });

  test('the read by id writes the list’s text, for the products findProduct finds: live, of the project, active for storefronts', async () => {
    const { shop, ids } = await seedCatalog();
    const other = await createProject(store.app);
    const db = store.app.deps.db;
    const pool = poolOf(db)!;
    const [full, bare, archived] = ids;
    const gone = (await db.product.findFirst({ where: { projectId: shop.project.id, deletedAt: { not: null } } }))!.id;
    for (const view of ['merchant', 'storefront'] as CatalogView[]) {
      const listed = await productList(db, view, shop.project.id, [sql`deleted_at IS NULL`]).fetch(NEWEST_FIRST);
      const seen = view === 'merchant' ? [full, bare, archived] : [full];
      for (const id of ids) {
        const text = await productJsonById(pool, view, shop.project.id, id);
        expect(text).toBe(seen.includes(id) ? listed.find((row) => row.id === id)!.json : undefined);
      }
      expect(await productJsonById(pool, view, shop.project.id, gone)).toBeUndefined();
      expect(await productJsonById(pool, view, other.project.id, full)).toBeUndefined();
    }
    // Through the API: the storefront does not see the draft or the archived product, nor another project the product.
    const storefront = store.app.client(shop.keys.publishable_test.token);
    for (const id of [bare, archived, gone])
      expect((await storefront.GET('/v1/products/{id}', { params: { path: { id } } })).response.status).toBe(404);
    const stranger = store.app.client(other.keys.secret_test.token);
    const foreign = await stranger.GET('/v1/products/{id}', { params: { path: { id: full } } });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toEqual({ error: { code: 'not_found', message: 'Product not found.' } });
  });

  test('the variant read by id writes the variant as the product’s text does, for the variants findVariant finds', async () => {
    const { shop, api, ids } = await seedCatalog();
    const other = await createProject(store.app);
    const db = store.app.deps.db;
    const pool = poolOf(db)!;
    const [full, , archived] = ids;
    const archivedVariant = (await createProduct(api, { title: 'Old', status: 'archived' })).variants[0].id;
    const deletedProduct = await createProduct(api, { title: 'Gone soon' });
    await api.DELETE('/v1/products/{id}', byId(deletedProduct.id));
    const archivedVariants = (await db.variant.findMany({ where: { productId: archived }, select: { id: true } })).map(
      (variant) => variant.id,
    );
    for (const view of ['merchant', 'storefront'] as CatalogView[]) {
      const text = (await productJsonById(pool, view, shop.project.id, full))!;
      const { variants } = JSON.parse(text) as { variants: Array<{ id: string }> };
      expect(variants).toHaveLength(3);
      for (const variant of variants)
        expect(await variantJsonById(pool, view, shop.project.id, variant.id)).toBe(JSON.stringify(variant));
      // Of an archived product: the merchant's only.
      for (const id of [...archivedVariants, archivedVariant])
        expect(await variantJsonById(pool, view, shop.project.id, id)).toEqual(
          view === 'merchant' ? expect.any(String) : undefined,
        );
      expect(await variantJsonById(pool, view, shop.project.id, deletedProduct.variants[0].id)).toBeUndefined();
      expect(await variantJsonById(pool, view, other.project.id, variants[0].id)).toBeUndefined();
    }
    // Through the API: a merchant reads the archived product's variant; the storefront and another project get 404.
    const storefront = store.app.client(shop.keys.publishable_test.token);
    const read = (client: typeof api, id: string) => client.GET('/v1/variants/{id}', { params: { path: { id } } });
    expect((await read(api, archivedVariant)).response.status).toBe(200);
    expect((await read(storefront, archivedVariant)).error).toEqual({
      error: { code: 'not_found', message: 'Variant not found.' },
    });
    expect((await read(api, deletedProduct.variants[0].id)).response.status).toBe(404);
    const stranger = store.app.client(other.keys.secret_test.token);
    expect((await read(stranger, archivedVariant)).response.status).toBe(404);
  });

  test('the pages equal the products read by id: whole, cut to fields, with metafields, merchant and storefront', async () => {
    const { shop, api, ids } = await seedCatalog();
    const storefront = store.app.client(shop.keys.publishable_test.token);
    await createDefinition(api, { owner_type: 'product', slug: 'care', value_type: 'single_line_text' });
    await api.PUT('/v1/products/{id}/metafields', { ...byId(ids[0]), body: { care: 'Wash cold, „gently“ ✓' } });
    const queries = [{}, { fields: ['title', 'variants', 'metadata'] }, { expand: ['metafields' as const] }];
    for (const client of [api, storefront]) {
      for (const query of queries) {
        const page = await client.GET('/v1/products', { params: { query: { limit: 25, ...query } } });
        expect(page.response.status).toBe(200);
        const read = await Promise.all(
          page.data!.data.map(
            async (product) =>
              (await client.GET('/v1/products/{id}', { params: { path: { id: product.id }, query } })).data!.data,
          ),
        );
        expect(JSON.stringify(page.data!.data)).toBe(JSON.stringify(read));
        expect(page.data!.data.length).toBe(client === api ? 3 : 1);
      }
    }
  });
});
