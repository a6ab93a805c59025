import type pg from 'pg';
import type { Database } from '../../db/client.js';
import { preparedStatement, type Columns } from '../../db/prepared.js';
import type { Variant } from '../../generated/prisma/client.js';
import { isoTimeSql, jsonArraySql, jsonArraysByKeySql, jsonObjectSql, type JsonField } from '../../shared/sql-json.js';
import { sqlList, type PageChildren, type PageSource, type SqlCondition } from '../../shared/sql-list.js';
import type { CatalogView } from './catalog.mappers.js';

/**
 * The product list's pages as prepared statements (src/shared/sql-list.ts), in one statement each: per product its
 * sort keys and its JSON text as the API shows it (toProductResource then productForView, variants and collection
 * ids included), written by PostgreSQL, the page's variants and collection ids read once for the whole page; and
 * the read by id from the same JSON, one statement per view.
 */

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

/** What the list reads of a product besides its JSON: its id and every sort key (the page's cursor is made of them). */
interface ProductKeys {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  title: string;
}

const KEY_COLUMNS: Columns<ProductKeys> = {
  id: 'id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  title: 'title',
};

/** A listed product: its sort keys and the JSON text of its resource in the view the statement was built for. */
export type ProductJsonRow = ProductKeys & { json: string };

// The variant's members in toVariantResource's order; the storefront view leaves out the merchant-only ones
// (variantForView).
const variantFields = (view: CatalogView): JsonField[] =>
  (
    [
      ['id', 'v.id'],
      ['product_id', 'v.product_id'],
      ['title', 'v.title'],
      ['sku', 'v.sku'],
      ['price', 'v.price'],
      ['sale_price', 'v.sale_price'],
      ['weight', 'v.weight'],
      ['low_stock_threshold', 'v.low_stock_threshold'],
      ['inventory_quantity', 'v.inventory_quantity'],
      ['inventory_policy', 'v.inventory_policy'],
      ['in_stock', `(v.inventory_quantity > 0 OR v.inventory_policy = 'continue')`],
      ['position', 'v.position'],
      ['created_at', isoTimeSql('v.created_at')],
      ['updated_at', isoTimeSql('v.updated_at')],
    ] satisfies JsonField[]
  ).filter(([key]) => view === 'merchant' || (key !== 'low_stock_threshold' && key !== 'inventory_quantity'));

// A product's variants (a JSON array) and collection ids (a text[]), as SQL over the product's row "products".
interface ProductChildren {
  variants: string;
  collectionIds: string;
}

const VARIANT_ORDER = 'item.position, item.id COLLATE "C"';

// Read by correlated subqueries: for one product (a read by id).
const childrenOfRow = (view: CatalogView): ProductChildren => ({
  variants: jsonArraySql(variantFields(view), `variants v WHERE v.product_id = "products"."id"`, VARIANT_ORDER),
  collectionIds: `ARRAY(SELECT collection_id FROM collection_products WHERE product_id = "products"."id" ORDER BY collection_id COLLATE "C")`,
});

// Read once for a page of products (sqlList's children): a correlated subquery per product would start a scan
// of variants and one of collection_products for each.
const pageChildren = (view: CatalogView): PageChildren => ({
  ctes: [
    `"page_variants" AS MATERIALIZED (${jsonArraysByKeySql(variantFields(view), 'product_id', `variants v WHERE v.product_id = ANY (ARRAY(SELECT id FROM "page"))`, VARIANT_ORDER)})`,
    `"page_collections" AS MATERIALIZED (SELECT product_id AS "key", array_agg(collection_id ORDER BY collection_id COLLATE "C") AS "ids" FROM collection_products WHERE product_id = ANY (ARRAY(SELECT id FROM "page")) GROUP BY product_id)`,
  ].join(', '),
  joins: [
    `LEFT JOIN "page_variants" ON "page_variants"."key" = "products"."id"`,
    `LEFT JOIN "page_collections" ON "page_collections"."key" = "products"."id"`,
  ].join(' '),
});

const childrenOfPage: ProductChildren = {
  variants: `COALESCE("page_variants"."json", '[]'::json)`,
  collectionIds: `COALESCE("page_collections"."ids", '{}')`,
};

// The product's members in toProductResource's order; the storefront view (productForView) leaves out metadata and
// puts variants last.
function productJsonSql(view: CatalogView, children: ProductChildren): string {
  const p = '"products"';
  const variants: JsonField = ['variants', children.variants];
  const fields: JsonField[] = [
    ...[
      'id',
      'title',
      'handle',
      'description',
      'status',
      'product_type',
      'vendor',
      'tags',
      'image',
      'price',
      'sale_price',
      'currency',
    ].map((column): JsonField => [column, `${p}."${column}"`]),
    ...(view === 'merchant' ? [variants] : []),
    ['collection_ids', children.collectionIds],
    ...(view === 'merchant' ? [['metadata', `${p}."metadata"`] as JsonField] : []),
    ['created_at', isoTimeSql(`${p}."created_at"`)],
    ['updated_at', isoTimeSql(`${p}."updated_at"`)],
    ...(view === 'storefront' ? [variants] : []),
  ];
  return `${jsonObjectSql(fields)}::text`;
}

const productPage = (view: CatalogView) =>
  sqlList<ProductKeys, { json: string }>(
    `products_${view}`,
    'products',
    KEY_COLUMNS,
    { json: productJsonSql(view, childrenOfPage) },
    pageChildren(view),
  );

const productPages = { merchant: productPage('merchant'), storefront: productPage('storefront') };

/** Pages of products matching `filters` (SQL conditions on products), each with its JSON text in `view`. */
export function productList(
  db: Database,
  view: CatalogView,
  filters: ReadonlyArray<SqlCondition | false | undefined>,
): PageSource<ProductJsonRow> {
  return productPages[view](db, filters);
}

/** A read by id of a JSON text in a view: the project's row `id` as `view` may see it, or undefined. */
export type JsonById = (pool: pg.Pool, view: CatalogView, projectId: string, id: string) => Promise<string | undefined>;

/**
 * One prepared statement per view selecting `json(view)` from `from` where `where` ($1 the id, $2 the project);
 * the storefront's also where `storefrontOnly`.
 */
function jsonById(
  name: string,
  json: (view: CatalogView) => string,
  from: string,
  where: string,
  storefrontOnly: string,
): JsonById {
  const statement = (view: CatalogView) =>
    preparedStatement<{ json: string }>(
      `${name}_${view}_by_id`,
      `SELECT ${json(view)} AS "json" FROM ${from} WHERE ${where}${view === 'storefront' ? ` AND ${storefrontOnly}` : ''}`,
    );
  const statements = { merchant: statement('merchant'), storefront: statement('storefront') };
  return async (pool, view, projectId, id) => (await statements[view](pool, [id, projectId]))[0]?.json;
}

/** The product's JSON text as the list writes it, by findProduct's rule: live, of the project, active for storefronts. */
export const productJsonById = jsonById(
  'product',
  (view) => productJsonSql(view, childrenOfRow(view)),
  '"products"',
  '"products"."id" = $1 AND "products"."project_id" = $2 AND "products"."deleted_at" IS NULL',
  `"products"."status" = 'active'`,
);

/** The variant's JSON text as a product's JSON writes it, by findVariant's rule: of a live product of the project, an active one for storefronts. */
export const variantJsonById = jsonById(
  'variant',
  (view) => `${jsonObjectSql(variantFields(view))}::text`,
  'variants v JOIN products p ON p.id = v.product_id',
  'v.id = $1 AND v.project_id = $2 AND p.deleted_at IS NULL',
  `p.status = 'active'`,
);
