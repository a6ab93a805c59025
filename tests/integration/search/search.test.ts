import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import { search, type SearchQuery } from '../../setup/requests.js';

const store = useStore({
  project: { currency: 'USD', exchange_rates: { EUR: 0.5, GBP: 0.8 } },
  app: { config: { logLevel: 'error' } },
});

const titles = async (query: SearchQuery) => (await search(store.api, query)).products.data.map((p) => p.title);
// The products matching every word (relaxed matches, which rank after them, left out).
const strictTitles = async (query: SearchQuery) =>
  (await search(store.api, query)).products.data.filter((p) => !p.relaxed).map((p) => p.title);

let linen: ProductResource;
let hoodie: ProductResource;
let draft: ProductResource;
let archived: ProductResource;
let deleted: ProductResource;
let collectionId: string;

beforeAll(async () => {
  linen = await createProduct(store.api, {
    title: 'Linen Shirt',
    product_type: 'Shirts',
    vendor: 'Fjellgear',
    tags: ['summer', 'apparel'],
    description: 'A breathable café classic.',
    variants: [
      { title: 'S / White', sku: 'LS-001-S', price: 5900 },
      { title: 'L / Sand', sku: 'LS-001-L', price: 6100 },
    ],
  });
  await createProduct(store.api, {
    title: 'Linen Shirt Classic',
    product_type: 'Shirts',
    vendor: 'Fjellgear',
    tags: ['apparel'],
    variants: [{ title: 'M / Blue', sku: 'LS-002-M', price: 6900 }],
  });
  await createProduct(store.api, {
    title: 'Oxford Shirt',
    product_type: 'Shirts',
    tags: ['apparel'],
    variants: [{ title: 'M / White', price: 4900 }],
  });
  hoodie = await createProduct(store.api, {
    title: 'Insulated Hoodie',
    product_type: 'Jackets',
    tags: ['winter'],
    variants: [{ title: 'M', price: 12900 }],
  });
  await createProduct(store.api, {
    title: 'Trail Runner',
    product_type: 'Shoes',
    description: 'Grippy shoes for mud.',
    variants: [{ title: 'EU 42', price: 11900 }],
  });
  draft = await createProduct(store.api, { title: 'Draft Linen Shirt', status: 'draft' });
  archived = await createProduct(store.api, { title: 'Archived Linen Shirt', status: 'archived' });
  deleted = await createProduct(store.api, { title: 'Deleted Linen Shirt' });
  await store.api.DELETE('/v1/products/{id}', { params: { path: { id: deleted.id } } });
  collectionId = (
    await store.api.POST('/v1/collections', {
      body: { title: 'Summer Essentials', description: 'Light layers for warm days.' },
    })
  ).data!.data.id;
  await store.api.POST('/v1/collections/{id}/products', {
    params: { path: { id: collectionId } },
    body: { product_ids: [linen.id, hoodie.id] },
  });
});

describe('searchCatalog: query language', () => {
  test('plain words all match, stemmed: "shirts" finds shirts', async () => {
    expect((await titles({ q: 'shirts' })).sort()).toEqual(['Linen Shirt', 'Linen Shirt Classic', 'Oxford Shirt']);
    expect(await titles({ q: 'linen shirts' })).toEqual(expect.arrayContaining(['Linen Shirt', 'Linen Shirt Classic']));
    const none = (await search(store.api, { q: 'oxford linen ' })).products;
    expect(none.relaxation).toMatchObject({ strict_total: 0, words: 2, min_matched_words: 1 });
    expect(none.data.every((p) => p.relaxed && p.matched_words === 1)).toBe(true);
  });

  test('a quoted phrase matches the words in order; -term and -"phrase" exclude', async () => {
    expect(await titles({ q: '"linen shirt" -blue' })).toEqual(['Linen Shirt']);
    expect(await titles({ q: 'shirt -"linen shirt"' })).toEqual(['Oxford Shirt']);
    expect(await titles({ q: '"shirt linen"' })).toEqual([]);
  });

  test('OR between terms or phrases', async () => {
    expect((await titles({ q: 'hoodie OR oxford' })).sort()).toEqual(['Insulated Hoodie', 'Oxford Shirt']);
    expect((await titles({ q: '"trail runner" OR "oxford shirt"' })).sort()).toEqual(['Oxford Shirt', 'Trail Runner']);
  });

  test('the last word is a prefix while typing; case and accents are ignored', async () => {
    expect(await titles({ q: 'hood' })).toEqual(['Insulated Hoodie']);
    expect(await titles({ q: 'INSULÄTED' })).toEqual(['Insulated Hoodie']);
    expect(await titles({ q: 'cafe' })).toEqual(['Linen Shirt']);
  });

  test('malformed input degrades to a plain search and never errors', async () => {
    expect(await strictTitles({ q: '"oxford shirt' })).toEqual(['Oxford Shirt']);
    expect(await strictTitles({ q: 'oxford - shirt' })).toEqual(['Oxford Shirt']);
    expect(await titles({ q: '-oxford' })).toEqual(['Oxford Shirt']);
    expect(await titles({ q: '!!! & ""' })).toEqual([]);
    expect(await titles({ q: 'OR OR hoodie OR' })).toEqual(['Insulated Hoodie']);
  });

  test('fields: SKUs, vendor, type, tags, variant titles, description and collection titles are searched', async () => {
    expect(await titles({ q: 'LS-002-M' })).toEqual(['Linen Shirt Classic']);
    expect((await titles({ q: 'fjellgear' })).sort()).toEqual(['Linen Shirt', 'Linen Shirt Classic']);
    expect(await titles({ q: 'grippy' })).toEqual(['Trail Runner']);
    expect((await titles({ q: 'essentials' })).sort()).toEqual(['Insulated Hoodie', 'Linen Shirt']);
    expect(await titles({ q: 'sand' })).toEqual(['Linen Shirt']);
  });

  test('a title match ranks above a match in the description', async () => {
    const runner = await createProduct(store.api, {
      title: 'Mud Boot',
      description: 'Made for trail running.',
      variants: [{ title: 'One', price: 100 }],
    });
    const result = await titles({ q: 'trail' });
    expect(result[0]).toBe('Trail Runner');
    expect(result).toContain(runner.title);
  });

  test('draft, archived and deleted products are never returned', async () => {
    const found = (await search(store.api, { q: 'linen shirt', limit: 50 })).products.data.map((p) => p.id);
    expect(found).not.toContain(draft.id);
    expect(found).not.toContain(archived.id);
    expect(found).not.toContain(deleted.id);
    expect(found).toContain(linen.id);
  });
});
