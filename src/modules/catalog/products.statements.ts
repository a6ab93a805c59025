import type { Database } from '../../db/client.js';
import { poolOf } from '../../db/client.js';
import { preparedStatement, selectList, type Columns } from '../../db/prepared.js';
import type { Product, Variant } from '../../generated/prisma/client.js';
import { sqlList, type PageSource, type SqlCondition } from '../../shared/sql-list.js';
import type { ShownProduct } from './catalog.mappers.js';

/**
 * The product list's pages as prepared statements (src/shared/sql-list.ts): the page's products, then their
 * variants and collection ids in two statements for the whole page (not one per product).
 */

type ProductFields = Omit<Product, 'projectId' | 'deletedAt'>;

const PRODUCT_COLUMNS: Columns<ProductFields> = {
  id: 'id',
  title: 'title',
  handle: 'handle',
  description: 'description',
  status: 'status',
  productType: 'product_type',
  vendor: 'vendor',
  tags: 'tags',
  image: 'image',
  price: 'price',
  salePrice: 'sale_price',
  currency: 'currency',
  metadata: 'metadata',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Where each field of a variant row lives (a SELECT or RETURNING list through selectList). */
export const VARIANT_COLUMNS: Columns<Variant> = {
  id: 'id',
  projectId: 'project_id',
  productId: 'product_id',
  title: 'title',
  sku: 'sku',
  price: 'price',
  salePrice: 'sale_price',
  weight: 'weight',
  lowStockThreshold: 'low_stock_threshold',
  inventoryQuantity: 'inventory_quantity',
  inventoryPolicy: 'inventory_policy',
  position: 'position',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

const productPages = sqlList<ProductFields>('products', 'products', PRODUCT_COLUMNS);

const variantsOf = preparedStatement<Variant>(
  'product_list_variants',
  `SELECT ${selectList(VARIANT_COLUMNS)} FROM variants WHERE product_id = ANY($1) ORDER BY product_id, position, id`,
);

const collectionIdsOf = preparedStatement<{ productId: string; collectionId: string }>(
  'product_list_collections',
  `SELECT product_id AS "productId", collection_id AS "collectionId" FROM collection_products WHERE product_id = ANY($1)`,
);

/** Pages of products matching `filters` (SQL conditions on products), each with its variants and collection ids. */
export function productList(
  db: Database,
  filters: ReadonlyArray<SqlCondition | false | undefined>,
): PageSource<ShownProduct> {
  const pages = productPages(db, filters);
  return {
    count: () => pages.count(),
    fetch: async (args) => {
      const products = await pages.fetch(args);
      if (products.length === 0) return [];
      const ids = products.map((product) => product.id);
      const pool = poolOf(db);
      const [variants, collections] = pool
        ? await Promise.all([variantsOf(pool, [ids]), collectionIdsOf(pool, [ids])])
        : await Promise.all([
            db.variant.findMany({ where: { productId: { in: ids } } }),
            db.collectionProduct.findMany({
              where: { productId: { in: ids } },
              select: { productId: true, collectionId: true },
            }),
          ]);
      const byProduct = new Map<string, ShownProduct>(
        products.map((product) => [product.id, { ...product, variants: [], collections: [] }] as const),
      );
      for (const variant of variants) byProduct.get(variant.productId)!.variants.push(variant);
      for (const link of collections)
        byProduct.get(link.productId)!.collections.push({ collectionId: link.collectionId });
      return [...byProduct.values()];
    },
  };
}
