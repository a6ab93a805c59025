import type { Database } from '../../db/client.js';
import type { Columns } from '../../db/prepared.js';
import type { Product, Variant } from '../../generated/prisma/client.js';
import { sqlList, type PageSource, type SqlCondition } from '../../shared/sql-list.js';
import type { ShownProduct } from './catalog.mappers.js';

/**
 * The product list's pages as prepared statements (src/shared/sql-list.ts): the page's products with their
 * variants and collection ids, in one statement.
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

/** A variant as the page statement carries it (JSON: times as milliseconds since the epoch). */
type VariantJson = Omit<Variant, 'createdAt' | 'updatedAt'> & { createdAt: number | Date; updatedAt: number | Date };

const TIME_FIELDS = new Set(['createdAt', 'updatedAt']);

// Each product's variants (by position) and collection ids are read with it, in the page's statement: one round
// trip per page, and the variants arrive as one JSON text per product instead of a row to parse per variant.
const productPages = sqlList<ProductFields, { variantRows: VariantJson[]; collectionIds: string[] }>(
  'products',
  'products',
  PRODUCT_COLUMNS,
  {
    variantRows: `(SELECT COALESCE(json_agg(json_build_object(${Object.entries(VARIANT_COLUMNS)
      .map(([field, column]) =>
        // Times as milliseconds since the epoch (the columns hold milliseconds): a Date from a number is cheap.
        TIME_FIELDS.has(field)
          ? `'${field}', (extract(epoch FROM v."${column}") * 1000)::bigint`
          : `'${field}', v."${column}"`,
      )
      .join(', ')}) ORDER BY v.position, v.id), '[]'::json) FROM variants v WHERE v.product_id = "products"."id")`,
    collectionIds: `ARRAY(SELECT collection_id FROM collection_products WHERE product_id = "products"."id" ORDER BY collection_id)`,
  },
);

/** Pages of products matching `filters` (SQL conditions on products), each with its variants and collection ids. */
export function productList(
  db: Database,
  filters: ReadonlyArray<SqlCondition | false | undefined>,
): PageSource<ShownProduct> {
  const pages = productPages(db, filters);
  return {
    count: () => pages.count(),
    fetch: async (args) =>
      (await pages.fetch(args)).map(({ variantRows, collectionIds, ...product }) => {
        for (const variant of variantRows) {
          variant.createdAt = new Date(variant.createdAt);
          variant.updatedAt = new Date(variant.updatedAt);
        }
        return {
          ...product,
          variants: variantRows as Variant[],
          collections: collectionIds.map((collectionId) => ({ collectionId })),
        };
      }),
  };
}
