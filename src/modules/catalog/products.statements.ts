import type pg from 'pg';
import type { Database } from '../../db/client.js';
import { preparedStatement, type Columns } from '../../db/prepared.js';
import type { Variant } from '../../generated/prisma/client.js';
import { isoTimeSql, jsonArraySql, jsonArraysByKeySql, jsonObjectSql, type JsonField } from '../../shared/sql-json.js';
import type { PageFetch } from '../../shared/pagination.js';
import { sql, sqlList, type PageSource, type SqlCondition } from '../../shared/sql-list.js';
import type { VersionedTexts } from '../../shared/versioned-texts.js';
import type { CatalogView } from './catalog.mappers.js';

/**
 * The product list's pages as prepared statements (src/shared/sql-list.ts): per product its sort keys and the
 * version of the rows its JSON is written from, then, for the products whose JSON is not kept at that version
 * (caches.productJson), their JSON text as the API shows it (toProductResource then productForView, variants and
 * collection ids included), written by PostgreSQL; the page's children are read once for the whole page. And the
 * read by id from the same JSON, one statement per view.
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

// The page's children in one scan each (sqlList's children): a correlated subquery per product would start a scan of
// variants and one of collection_products for each. `versions`: the xmin of each row a product's JSON is written
// from (its own, its variants', its collection links'), which changes with any write to them; `json`: its
// variants' JSON and its collection ids. All over "page" (the products, with `row_xmin`), joined by "key".
interface Cte {
  name: string;
  body: string;
}
const ofPage = (table: string) => `${table}.product_id = ANY (ARRAY(SELECT id FROM "page"))`;
const versionCtes: Cte[] = ['variants', 'collection_products'].map((table) => ({
  name: `page_${table}_versions`,
  body: `SELECT product_id AS "key", string_agg(xmin::text, ',' ORDER BY xmin::text) AS "xmins" FROM ${table} WHERE ${ofPage(table)} GROUP BY product_id`,
}));
const jsonCtes = (view: CatalogView): Cte[] => [
  {
    name: 'page_variants',
    body: jsonArraysByKeySql(variantFields(view), 'product_id', `variants v WHERE ${ofPage('v')}`, VARIANT_ORDER),
  },
  {
    name: 'page_collections',
    body: `SELECT product_id AS "key", array_agg(collection_id ORDER BY collection_id COLLATE "C") AS "ids" FROM collection_products WHERE ${ofPage('collection_products')} GROUP BY product_id`,
  },
];
const childrenSql = (ctes: Cte[]) => ({
  ctes: ctes.map(({ name, body }) => `"${name}" AS MATERIALIZED (${body})`).join(', '),
  joins: ctes.map(({ name }) => `LEFT JOIN "${name}" ON "${name}"."key" = "products"."id"`).join(' '),
});

// The version of a product's rows: its own xmin, then its variants' and its collection links'.
const VERSION = [
  `"products"."row_xmin"::text`,
  ...versionCtes.map(({ name }) => `COALESCE("${name}"."xmins", '')`),
].join(` || '/' || `);
const ROW_XMIN = `"products".xmin AS "row_xmin"`;

const childrenOfPage: ProductChildren = {
  variants: `COALESCE("page_variants"."json", '[]'::json)`,
  collectionIds: `COALESCE("page_collections"."ids", '{}')`,
};

/** What a page reads of a product: its sort keys and the version of the rows its JSON is written from. */
type ProductVersionRow = ProductKeys & { version: string };

const productPages = sqlList<ProductKeys, { version: string }>(
  'products',
  'products',
  KEY_COLUMNS,
  { version: VERSION },
  { pageColumns: ROW_XMIN, ...childrenSql(versionCtes) },
);

// The same pages with each product's JSON in a view and the version of the rows it was written from (read in the
// same statement): what a page's products not kept at their version need, read by their ids.
const productJsonPage = (view: CatalogView) =>
  sqlList<ProductKeys, { version: string; json: string }>(
    `products_json_${view}`,
    'products',
    KEY_COLUMNS,
    { version: VERSION, json: productJsonSql(view, childrenOfPage) },
    { pageColumns: ROW_XMIN, ...childrenSql([...versionCtes, ...jsonCtes(view)]) },
  );
const productJsonPages = { merchant: productJsonPage('merchant'), storefront: productJsonPage('storefront') };

// A page of given products read whole, in id order (their ids are the filter; `take` their number).
const BY_ID: PageFetch = {
  after: undefined,
  from: undefined,
  keys: [{ field: 'id', kind: 'string' }],
  order: 'asc',
  orderBy: [{ id: 'asc' }],
  take: 0,
};

/**
 * Pages of the project's products matching `filters` (SQL conditions on products), each with its JSON text in
 * `view`: taken from `texts` when kept there at the version the page read, else written by PostgreSQL (in a second
 * statement, for those products only) and kept. A product deleted between the two statements is left out. `db` is
 * never a transaction's client (its own uncommitted rows could change again under the same xmin).
 */
export function productList(
  db: Database,
  view: CatalogView,
  projectId: string,
  filters: ReadonlyArray<SqlCondition | false | undefined>,
  texts?: VersionedTexts,
): PageSource<ProductJsonRow> {
  const source = productPages(db, [sql`project_id = ${projectId}`, ...filters]);
  return {
    count: () => source.count(),
    fetch: async (args) => withJson(db, view, projectId, await source.fetch(args), texts),
  };
}

/** The page's rows with their JSON: kept ones from `texts`, the others written in one statement (and kept). */
async function withJson(
  db: Database,
  view: CatalogView,
  projectId: string,
  rows: ProductVersionRow[],
  texts: VersionedTexts | undefined,
): Promise<ProductJsonRow[]> {
  const key = (id: string) => `${view}:${id}`;
  const kept = rows.map((row) => texts?.get(projectId, key(row.id), row.version));
  const missing = rows.filter((_, i) => kept[i] === undefined).map((row) => row.id);
  const written = new Map<string, string>();
  if (missing.length > 0) {
    const source = productJsonPages[view](db, [sql`project_id = ${projectId}`, sql`id = ANY(${missing}::text[])`]);
    for (const row of await source.fetch({ ...BY_ID, take: missing.length })) {
      texts?.set(projectId, key(row.id), row.version, row.json);
      written.set(row.id, row.json);
    }
  }
  const page: ProductJsonRow[] = [];
  rows.forEach(({ id, createdAt, updatedAt, title }, i) => {
    const json = kept[i] ?? written.get(id);
    if (json !== undefined) page.push({ id, createdAt, updatedAt, title, json });
  });
  return page;
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
