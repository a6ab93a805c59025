import type { components } from '../../generated/openapi.js';
import type { Collection, File, Product, Variant } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type ProductResource = Schemas['Product'];
export type VariantResource = Schemas['Variant'];
export type ProductRow = Product & { variants: Variant[]; collections: Array<{ collectionId: string }> };
/** What a product resource shows of a row: its fields but the project and deletion time, variants, collection ids. */
export type ShownProduct = Omit<ProductRow, 'projectId' | 'deletedAt'>;

/** A variant as the API shows it. */
export function toVariantResource(variant: Variant): VariantResource {
  return {
    id: variant.id,
    product_id: variant.productId,
    title: variant.title,
    sku: variant.sku,
    price: variant.price,
    sale_price: variant.salePrice,
    weight: variant.weight,
    low_stock_threshold: variant.lowStockThreshold,
    inventory_quantity: variant.inventoryQuantity,
    inventory_policy: variant.inventoryPolicy as VariantResource['inventory_policy'],
    in_stock: variant.inventoryQuantity > 0 || variant.inventoryPolicy === 'continue',
    position: variant.position,
    created_at: variant.createdAt.toISOString(),
    updated_at: variant.updatedAt.toISOString(),
  };
}

/** A product with its variants (by position) and collection ids, as the API shows it. */
export function toProductResource(product: ShownProduct): ProductResource {
  return {
    id: product.id,
    title: product.title,
    handle: product.handle,
    description: product.description,
    status: product.status as ProductResource['status'],
    product_type: product.productType,
    vendor: product.vendor,
    tags: product.tags,
    image: product.image,
    price: product.price,
    sale_price: product.salePrice,
    currency: product.currency,
    variants: [...product.variants]
      .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
      .map(toVariantResource),
    collection_ids: product.collections.map((c) => c.collectionId).sort(),
    metadata: product.metadata as Record<string, unknown>,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}

/** Which answer a caller gets: storefronts (publishable keys, customer tokens) never see merchant-only fields. */
export type CatalogView = 'storefront' | 'merchant';

/** A variant as `view` may see it: the storefront view leaves out the exact stock and the low-stock threshold. */
export function variantForView(variant: VariantResource, view: CatalogView): VariantResource {
  if (view === 'merchant') return variant;
  const { inventory_quantity: _quantity, low_stock_threshold: _threshold, ...storefront } = variant;
  return storefront;
}

/** A product as `view` may see it: the storefront view leaves out `metadata` and each variant's merchant-only fields. */
export function productForView(product: ProductResource, view: CatalogView): ProductResource {
  if (view === 'merchant') return product;
  const { metadata: _metadata, variants, ...storefront } = product;
  return { ...storefront, variants: variants.map((variant) => variantForView(variant, view)) };
}

export type CollectionResource = Schemas['Collection'];
export type CollectionWithCount = Collection & { productCount: number };
export type FileResource = Schemas['File'];

/** A collection as the API shows it. */
export function toCollectionResource(collection: CollectionWithCount): CollectionResource {
  return {
    id: collection.id,
    title: collection.title,
    handle: collection.handle,
    description: collection.description,
    image: collection.image,
    product_count: collection.productCount,
    created_at: collection.createdAt.toISOString(),
    updated_at: collection.updatedAt.toISOString(),
  };
}

/** A collection row with Prisma's `_count` of live products, as a collection with its count. */
export function withProductCount<C extends Collection & { _count: { products: number } }>({
  _count,
  ...row
}: C): CollectionWithCount {
  return { ...row, productCount: _count.products };
}

/** A registered file as the API shows it. */
export function toFileResource(file: File): FileResource {
  return {
    id: file.id,
    filename: file.filename,
    mime_type: file.mimeType,
    size: file.size,
    url: file.url,
    created_at: file.createdAt.toISOString(),
  };
}
