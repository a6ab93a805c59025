import type { components } from '../generated/openapi.js';
import type { Ctx } from '../shared/context.js';
import { addMembers, createGroup } from '../modules/customer-groups/index.js';
import { createAddress, createCustomer } from '../modules/customers/index.js';
import { createPriceList, setPriceListPrices } from '../modules/price-lists/index.js';
import { createRate, createZone } from '../modules/shipping/index.js';

type RateCreate = components['schemas']['ShippingRateCreate'];
type AddressCreate = components['schemas']['CustomerAddressCreate'];

/** Zones with flat rates: the storefront's rate lookup answers for the US, Europe and everywhere else. */
const ZONES: Array<{ name: string; countries: string[]; is_rest_of_world?: boolean; rates: RateCreate[] }> = [
  {
    name: 'United States',
    countries: ['US'],
    rates: [
      { name: 'Standard', price: 595, currency: 'USD', min_delivery_days: 3, max_delivery_days: 5 },
      { name: 'Express', price: 1495, currency: 'USD', min_delivery_days: 1, max_delivery_days: 2 },
      // The free-shipping threshold: standard delivery costs nothing from $75.
      {
        name: 'Free standard shipping',
        description: 'On orders of $75 or more.',
        price: 0,
        currency: 'USD',
        min_order_subtotal: 7500,
        min_delivery_days: 3,
        max_delivery_days: 5,
      },
    ],
  },
  {
    name: 'Europe',
    countries: ['DE', 'FR', 'GB', 'AT', 'NL'],
    rates: [
      { name: 'Standard', price: 490, currency: 'EUR', min_delivery_days: 2, max_delivery_days: 4 },
      { name: 'Express', price: 1290, currency: 'EUR', min_delivery_days: 1, max_delivery_days: 1 },
      {
        name: 'Free standard shipping',
        description: 'On orders of €50 or more.',
        price: 0,
        currency: 'EUR',
        min_order_subtotal: 5000,
        min_delivery_days: 2,
        max_delivery_days: 4,
      },
      { name: 'International standard', price: 1490, currency: 'USD', min_delivery_days: 4, max_delivery_days: 8 },
    ],
  },
  {
    name: 'Rest of world',
    countries: [],
    is_rest_of_world: true,
    rates: [{ name: 'International', price: 2500, currency: 'USD', min_delivery_days: 7, max_delivery_days: 14 }],
  },
];

/** A handful of customers in the countries the demo taxes, each with a default address. */
const CUSTOMERS: Array<{
  email: string;
  first_name: string;
  last_name: string;
  locale: string;
  tags: string[];
  active_price_key?: string;
  address: AddressCreate;
}> = [
  {
    email: 'ada.lovelace@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    locale: 'en-GB',
    tags: ['vip'],
    address: { line1: '12 St James Square', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' },
  },
  {
    email: 'grace.hopper@example.com',
    first_name: 'Grace',
    last_name: 'Hopper',
    locale: 'en-US',
    tags: ['vip', 'wholesale'],
    active_price_key: 'wholesale',
    address: { line1: '350 Fifth Avenue', city: 'New York', state: 'NY', postal_code: '10118', country: 'US' },
  },
  {
    email: 'max.mustermann@example.de',
    first_name: 'Max',
    last_name: 'Mustermann',
    locale: 'de-DE',
    tags: [],
    address: { line1: 'Unter den Linden 77', city: 'Berlin', postal_code: '10117', country: 'DE' },
  },
  {
    email: 'marie.curie@example.fr',
    first_name: 'Marie',
    last_name: 'Curie',
    locale: 'fr-FR',
    tags: [],
    address: { line1: '11 Rue Pierre et Marie Curie', city: 'Paris', postal_code: '75005', country: 'FR' },
  },
  {
    email: 'lin.chen@example.com',
    first_name: 'Lin',
    last_name: 'Chen',
    locale: 'en-US',
    tags: [],
    address: {
      line1: '1 Dr Carlton B Goodlett Pl',
      city: 'San Francisco',
      state: 'CA',
      postal_code: '94102',
      country: 'US',
    },
  },
];

/**
 * The demo project's store around its catalog, made through the services: three shipping zones with
 * rates (free shipping from a threshold in the US and Europe), five customers with a default address,
 * a manual customer group (VIP) with two of them, and the `wholesale` price list (see seedWholesale).
 */
export async function seedDemoStore(ctx: Ctx): Promise<void> {
  for (const { rates, ...zone } of ZONES) {
    const created = await createZone(ctx, zone, { allowPrivateTargets: false });
    for (const rate of rates) await createRate(ctx, created.id, rate);
  }
  const vip: string[] = [];
  const idsByEmail = new Map<string, string>();
  for (const { address, ...customer } of CUSTOMERS) {
    const created = await createCustomer(ctx, customer);
    idsByEmail.set(customer.email, created.id);
    await createAddress(ctx, created.id, {
      ...address,
      first_name: customer.first_name,
      last_name: customer.last_name,
      is_default: true,
    });
    if (customer.tags.includes('vip')) vip.push(created.id);
  }
  const group = await createGroup(ctx, {
    name: 'VIP',
    description: 'Customers who get early access to new arrivals.',
    type: 'manual',
  });
  await addMembers(ctx, group.id, vip);
  await seedWholesale(ctx, idsByEmail.get('lin.chen@example.com')!);
}

/**
 * The `wholesale` price list (USD): the first variant of the first two US-dollar products at 85 % of their
 * price, the first also at 70 % from 10 units. Grace Hopper buys from it by her own `active_price_key`; Lin
 * Chen through the manual group "Trade accounts", which carries the key.
 */
async function seedWholesale(ctx: Ctx, tradeCustomerId: string): Promise<void> {
  const products = await ctx.db.product.findMany({
    where: { projectId: ctx.project.id, currency: 'USD', status: 'active', deletedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: 2,
    include: { variants: { orderBy: { position: 'asc' }, take: 1 } },
  });
  const variants = products.map((product) => product.variants[0]);
  const list = await createPriceList(ctx, {
    slug: 'wholesale',
    name: 'Wholesale',
    description: 'Trade prices for resellers: 15 % off, 30 % off from 10 units of the first product.',
    currency: 'USD',
  });
  await setPriceListPrices(ctx, list.id, [
    ...variants.map((variant) => ({ variant_id: variant.id, amount: Math.round(variant.price * 0.85) })),
    { variant_id: variants[0].id, min_quantity: 10, amount: Math.round(variants[0].price * 0.7) },
  ]);
  const trade = await createGroup(ctx, {
    name: 'Trade accounts',
    description: 'Resellers who buy at wholesale prices.',
    type: 'manual',
    active_price_key: 'wholesale',
  });
  await addMembers(ctx, trade.id, [tradeCustomerId]);
}
