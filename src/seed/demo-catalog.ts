import type { AppDeps } from '../app-deps.js';
import type { Project } from '../generated/prisma/client.js';
import type { Ctx } from '../shared/context.js';
import { addProducts, createCollection, createProduct } from '../modules/catalog/index.js';
import { setInventoryLevels } from '../modules/inventory/index.js';
import { createLocation } from '../modules/locations/index.js';

interface Line {
  type: string;
  vendor: string;
  names: string[];
  tags: string[];
  price: number;
  sizes: string[];
  colors: string[];
  collection: string;
  /** The currency the line is priced in, when not the project's (USD). */
  currency?: string;
}

const LINES: Line[] = [
  {
    type: 'Shoes',
    vendor: 'Northpeak',
    names: [
      'Trail Runner',
      'Ridge Hiker',
      'Summit Approach',
      'Mudlark',
      'Scree Runner',
      'Canyon Sandal',
      'Alpine Boot',
      'Forest Walker',
      'Tempo Road',
      'Fell Racer',
    ],
    tags: ['footwear', 'running'],
    price: 11900,
    sizes: ['EU 40', 'EU 42', 'EU 44'],
    colors: ['Black'],
    collection: 'Trail Running',
  },
  {
    type: 'Jackets',
    vendor: 'Stormline',
    names: [
      'Rain Shell',
      'Down Parka',
      'Wind Shirt',
      'Insulated Hoodie',
      'Softshell',
      'Storm Anorak',
      'Puffer Vest',
      'Fleece Jacket',
      'Ski Shell',
      'Packable Jacket',
    ],
    tags: ['outerwear', 'waterproof'],
    price: 18900,
    sizes: ['S', 'M', 'L'],
    colors: ['Navy', 'Red'],
    collection: 'New Arrivals',
  },
  {
    type: 'Backpacks',
    vendor: 'Carryall',
    names: [
      'Daypack 20',
      'Summit Pack 35',
      'Expedition 65',
      'Hydration Vest',
      'City Commuter',
      'Roll-top 28',
      'Ultralight 40',
      'Kids Pack 12',
      'Camera Pack',
      'Hip Pack',
    ],
    tags: ['bags'],
    price: 8900,
    sizes: ['One size'],
    colors: ['Black', 'Olive'],
    collection: 'Camping',
  },
  {
    type: 'Tents',
    vendor: 'Basecamp',
    names: [
      'Solo Tent',
      'Trekker 2',
      'Family Dome 4',
      'Bivy Sack',
      'Tarp Shelter',
      'Hammock',
      'Basecamp 6',
      'Winter Tent 3',
      'Pop-up Beach Tent',
      'Ultralight 1',
    ],
    tags: ['camping', 'shelter'],
    price: 24900,
    sizes: ['Standard'],
    colors: ['Green'],
    collection: 'Camping',
  },
  {
    type: 'Accessories',
    vendor: 'Northpeak',
    names: [
      'Merino Beanie',
      'Trail Socks',
      'Headlamp 400',
      'Trekking Poles',
      'Water Bottle',
      'Buff Neckwear',
      'Gaiters',
      'Sunglasses',
      'Compass',
      'First Aid Kit',
    ],
    tags: ['accessories'],
    price: 2900,
    sizes: ['One size'],
    colors: ['Grey'],
    collection: 'Sale',
  },
  {
    type: 'Shirts',
    vendor: 'Fjellgear',
    names: ['Linen Shirt', 'Oxford Shirt', 'Flannel Shirt', 'Linen Camp Shirt', 'Polo Shirt'],
    tags: ['apparel', 'shirts'],
    price: 5900,
    sizes: ['S', 'L'],
    colors: ['White', 'Sand'],
    collection: 'New Arrivals',
  },
  {
    type: 'Shirts',
    vendor: 'Fjellgear',
    names: ['Blue Linen Shirt', 'Chambray Shirt', 'Denim Shirt', 'Merino T-Shirt', 'Hiking Shirt'],
    tags: ['apparel', 'shirts'],
    price: 6900,
    sizes: ['S', 'L'],
    colors: ['Blue', 'Navy'],
    collection: 'New Arrivals',
  },
  {
    // Priced in EUR, so a draft order in EUR (for Germany or France) has catalog items to sell.
    type: 'Shirts',
    vendor: 'Fjellgear',
    names: [
      'Berlin Linen Shirt',
      'Hamburg Oxford Shirt',
      'Munich Flannel Shirt',
      'Cologne Polo Shirt',
      'Dresden Denim Shirt',
    ],
    tags: ['apparel', 'shirts', 'eu'],
    price: 4900,
    sizes: ['S', 'L'],
    colors: ['White'],
    collection: 'New Arrivals',
    currency: 'EUR',
  },
];

/**
 * A small realistic catalog for a new project: 65 products in six product types with variants and
 * SKUs (60 priced in the project's USD, 5 in EUR), four collections, a second location and stock at both.
 * Answers the context it wrote with (the secret test key's), for the rest of the demo data. Made through the services, so handles,
 * derived prices, inventory totals and store events are exactly what the API would produce.
 */
export async function seedDemoCatalog(deps: AppDeps, project: Project, keyId: string): Promise<Ctx> {
  // Made as the project's secret test key would make it: the store events name that key.
  const ctx: Ctx = {
    ...deps,
    project,
    actor: { kind: 'api_key', id: keyId, keyType: 'secret' },
    mode: 'test',
    requestId: 'demo-catalog',
  };
  const warehouse = await createLocation(ctx, {
    name: 'Berlin Warehouse',
    type: 'warehouse',
    city: 'Berlin',
    country: 'DE',
  });
  const defaultLocation = await deps.db.location.findFirstOrThrow({
    where: { projectId: project.id, isDefault: true },
  });
  const collections = new Map<string, string>();
  for (const title of ['New Arrivals', 'Trail Running', 'Camping', 'Sale']) {
    collections.set(
      title,
      (await createCollection(ctx, { title, description: `Our ${title.toLowerCase()} selection.` })).id,
    );
  }
  let n = 0;
  for (const line of LINES) {
    const members: string[] = [];
    for (const name of line.names) {
      n += 1;
      const variants = line.sizes.flatMap((size) =>
        line.colors.map((color) => ({
          title: line.colors.length > 1 ? `${size} / ${color}` : size,
          sku: `${line.type.slice(0, 3).toUpperCase()}-${String(n).padStart(3, '0')}-${size.replace(/\W/g, '')}-${color.slice(0, 3).toUpperCase()}`,
          price: line.price + (n % 5) * 1000,
          sale_price: n % 7 === 0 ? line.price - 1000 : null,
          weight: 300 + (n % 9) * 100,
          low_stock_threshold: 5,
        })),
      );
      // A product takes its currency from the project at creation; the EUR line is made as if it were EUR.
      const lineCtx = line.currency ? { ...ctx, project: { ...project, currency: line.currency } } : ctx;
      const product = await createProduct(lineCtx, {
        title: `${line.vendor} ${name}`,
        description: `The ${name} by ${line.vendor}.`,
        product_type: line.type,
        vendor: line.vendor,
        tags: [...line.tags, ...(n % 4 === 0 ? ['bestseller'] : [])],
        status: n % 17 === 0 ? 'draft' : 'active',
        variants,
      });
      members.push(product.id);
      await setInventoryLevels(
        ctx,
        product.variants.flatMap((variant, index) => [
          { variant_id: variant.id, location_id: defaultLocation.id, available: 3 + ((n + index) % 20) },
          { variant_id: variant.id, location_id: warehouse.id, available: (n * 7 + index) % 40 },
        ]),
      );
    }
    await addProducts(ctx, collections.get(line.collection)!, members);
    if (line.type === 'Shoes') await addProducts(ctx, collections.get('New Arrivals')!, members.slice(0, 4));
  }
  return ctx;
}
