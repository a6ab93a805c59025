import { expect } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCompany } from '../../factories/company.factory.js';
import { createPurchaseOrder } from '../../factories/purchase-order.factory.js';
import { GOOD_PASSWORD, registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createGroup } from '../../factories/customer-group.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createDefinition, createFile } from '../../factories/metafield.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import { createWebhook, listDeliveries } from '../../factories/webhook.factory.js';
import type { CommerceClient } from '@commerce-api/sdk';
import type { TestApp } from '../../setup/test-app.js';

/** One project populated with one of every resource, with the ids the sweep substitutes into requests. */
export interface Tenant {
  name: 'A' | 'B';
  project: CreatedProject['project'];
  keys: CreatedProject['keys'];
  api: CommerceClient;
  /** An id of each resource kind by its id prefix (`cus`, `prod`, ...): the resource the sweep names. */
  ids: Record<string, string>;
  /** A second location (a transfer's destination). */
  otherLocation: string;
  /** A metafield definition slug only this project has (product owner type). */
  ownSlug: string;
  /** The signed-in storefront customer: credentials and tokens. */
  customer: {
    email: string;
    password: string;
    accessToken: string;
    refreshToken: string;
    resetToken: string;
    /** An address of the signed-in customer's own book (`/v1/me/addresses/{id}`). */
    addressId: string;
  };
}

/** The shared metafield slug of every owner type; the contract's set-one examples write `rating` (`{ value: 4 }`). */
export const SHARED_SLUG = 'rating';

/**
 * Creates a project and fills it through the API with one of every resource: locations with stock, a product
 * with a variant in a collection, files, a customer with an address, a note, group membership and metafield
 * values, a company with an address and a contact, a price list with a price, a shipping zone with a rate, a webhook
 * with a delivery, a draft order with items, an order with a fulfilment, a purchase order, a navigation menu, a synonym group, a merchandising rule, a
 * blocked suggestion and a storefront customer with a
 * session and a pending password reset.
 */
export async function populate(app: TestApp, name: 'A' | 'B'): Promise<Tenant> {
  const created = await createProject(app, {
    name: `Tenant ${name}`,
    domain: `tenant-${name.toLowerCase()}.example.com`,
  });
  const api = app.client(created.keys.secret_test.token);
  const ids: Record<string, string> = { proj: created.project.id, key: created.keys.secret_test.id };
  const must = async <T>(what: string, call: Promise<{ data?: T; error?: unknown }>): Promise<T> => {
    const { data, error } = await call;
    expect([what, error]).toEqual([what, undefined]);
    return data as T;
  };

  // A webhook first, so the customer's creation below records a delivery for it.
  const webhook = await createWebhook(api, `https://hooks-${name.toLowerCase()}.example.com/in`, {
    events: ['customer.created', 'customer.updated'],
  });
  ids.wh = webhook.id;

  const location = await must(
    'createLocation',
    api.POST('/v1/locations', { body: { name: `${name} Warehouse`, type: 'warehouse', country: 'DE' } }),
  );
  ids.loc = location.data.id;
  const other = await must(
    'createLocation 2',
    api.POST('/v1/locations', { body: { name: `${name} Store`, type: 'retail', country: 'DE' } }),
  );

  const product = await createProduct(api, { title: `${name} Trail Runner`, tags: ['running'] });
  ids.prod = product.id;
  ids.var = product.variants[0].id;
  for (const loc of [ids.loc, other.data.id]) {
    await must(
      'setInventoryLevel',
      api.PUT('/v1/inventory-levels', { body: { variant_id: ids.var, location_id: loc, available: 20 } }),
    );
  }
  const collection = await must(
    'createCollection',
    api.POST('/v1/collections', { body: { title: `${name} Running` } }),
  );
  ids.col = collection.data.id;
  await must(
    'addCollectionProducts',
    api.POST('/v1/collections/{id}/products', { params: { path: { id: ids.col } }, body: { product_ids: [ids.prod] } }),
  );
  ids.img = await createFile(api, 'image/jpeg');
  ids.file = await createFile(api, 'application/pdf');
  // A video file: what a video_reference metafield names (not an id prefix of its own: file_).
  ids.video = await createFile(api, 'video/mp4');

  const customer = await createCustomer(api, { email: `${name.toLowerCase()}.customer@example.com`, first_name: name });
  ids.cus = customer.id;
  const address = await must(
    'createCustomerAddress',
    api.POST('/v1/customers/{id}/addresses', {
      params: { path: { id: ids.cus } },
      body: {
        first_name: name,
        last_name: 'Doe',
        line1: 'Main St 1',
        city: 'Berlin',
        postal_code: '10117',
        country: 'DE',
      },
    }),
  );
  ids.addr = address.data.id;
  const note = await must(
    'createCustomerNote',
    api.POST('/v1/customers/{id}/notes', { params: { path: { id: ids.cus } }, body: { content: `${name}'s note` } }),
  );
  ids.cnote = note.data.id;
  const group = await createGroup(api, { name: `${name} VIP` });
  ids.cg = group.id;
  await must(
    'addCustomerGroupMembers',
    api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: ids.cg } },
      body: { customer_ids: [ids.cus] },
    }),
  );

  const company = await createCompany(api, { name: `${name} Textiles` });
  ids.comp = company.id;
  const caddr = await must(
    'createCompanyAddress',
    api.POST('/v1/companies/{id}/addresses', {
      params: { path: { id: ids.comp } },
      body: { label: 'HQ', line1: 'Lagerstrasse 5', city: 'Hamburg', postal_code: '20457', country: 'DE' },
    }),
  );
  ids.caddr = caddr.data.id;
  const contact = await must(
    'createCompanyContact',
    api.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: ids.comp } },
      body: { name: `${name} Buyer`, email: `buyer@${name.toLowerCase()}-textiles.example` },
    }),
  );
  ids.ccon = contact.data.id;

  const priceList = await createPriceList(api, { slug: 'wholesale', currency: created.project.currency });
  ids.pl = priceList.id;
  ids.plp = (await setPrices(api, priceList.id, [{ variant_id: ids.var, amount: 900 }]))[0].id;

  const zone = await createZone(api, { name: `${name} North America` });
  ids.shz = zone.id;
  ids.shr = (await createRate(api, zone.id)).id;

  const purchaseOrder = await createPurchaseOrder(api, ids.loc, [[ids.var, 5]], { supplier_id: ids.comp });
  ids.po = purchaseOrder.id;
  ids.pol = purchaseOrder.lines[0].id;
  const menu = await must(
    'createNavigationMenu',
    api.POST('/v1/navigation', {
      body: { title: `${name} menu`, items: [{ title: 'Runners', type: 'product', target: product.id }] },
    }),
  );
  ids.nav = menu.data.id;

  const checkout = await must(
    'createCheckout',
    api.POST('/v1/checkouts', {
      body: {
        currency: product.currency,
        email: 'shopper@example.com',
        shipping_address: { line1: '350 Fifth Avenue', city: 'New York', state: 'NY', country: 'US' },
        lines: [{ variant_id: ids.var, quantity: 1 }],
      },
    }),
  );
  ids.chk = checkout.data.id;
  ids.chkl = checkout.data.lines[0].id;

  const deliveries = await listDeliveries(api, ids.wh);
  expect(deliveries.length).toBeGreaterThan(0);
  ids.whd = deliveries[0].id;

  const draft = await createDraftOrder(api, { currency: product.currency, customer_id: ids.cus });
  ids.dord = draft.id;
  const items = await addItems(api, draft.id, [
    { variant_id: ids.var, quantity: 1 },
    { title: 'Gift wrapping', unit_price: 400, quantity: 1 },
  ]);
  ids.doli = items[0].id;
  const toComplete = await createDraftOrder(api, { currency: product.currency, customer_email: 'buyer@example.com' });
  await addItems(api, toComplete.id, [{ variant_id: ids.var, quantity: 1 }]);
  const order = await must(
    'completeDraftOrder',
    api.POST('/v1/draft-orders/{id}/complete', { params: { path: { id: toComplete.id } } }),
  );
  ids.ord = order.data.id;
  const fulfillment = await must(
    'createOrderFulfillment',
    api.POST('/v1/orders/{id}/fulfillments', {
      params: { path: { id: ids.ord } },
      body: { location_id: ids.loc, line_items: [{ line_item_index: 0, quantity: 1 }] },
    }),
  );
  ids.ful = fulfillment.data.id;
  // A paid order with a refund that brought its shipped unit back, and a sent draft holding a unit (a reservation).
  await must('payOrder', api.POST('/v1/orders/{id}/pay', { params: { path: { id: ids.ord } } }));
  await must(
    'createOrderRefund',
    api.POST('/v1/orders/{id}/refunds', {
      params: { path: { id: ids.ord } },
      body: { amount: 100, line_items: [{ line_item_index: 0, quantity: 1 }] },
    }),
  );
  await must('sendDraftOrder', api.POST('/v1/draft-orders/{id}/send', { params: { path: { id: ids.dord } } }));

  // Metafields: the shared slug on every owner type (with a value on each owner), and a slug only this project has.
  const owners = {
    product: ids.prod,
    variant: ids.var,
    collection: ids.col,
    customer: ids.cus,
    order: ids.ord,
  } as const;
  for (const owner_type of Object.keys(owners) as Array<keyof typeof owners>) {
    await createDefinition(api, { label: 'Rating', slug: SHARED_SLUG, owner_type, value_type: 'integer' });
  }
  const ownSlug = `only_${name.toLowerCase()}`;
  ids.mfd = (
    await createDefinition(api, {
      label: `Only ${name}`,
      slug: ownSlug,
      owner_type: 'product',
      value_type: 'single_line_text',
    })
  ).id;
  for (const [owner, id] of Object.entries(owners)) {
    const path = `/v1/${owner === 'product' ? 'products' : owner === 'variant' ? 'variants' : owner === 'collection' ? 'collections' : owner === 'customer' ? 'customers' : 'orders'}/${id}/metafields/${SHARED_SLUG}`;
    const response = await fetch(app.baseUrl + path, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${created.keys.secret_test.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: 3 }),
    });
    expect([path, response.status]).toEqual([path, 200]);
  }

  const synonyms = await must(
    'createSynonymGroup',
    api.POST('/v1/search/synonyms', { body: { synonym_type: 'equivalent', terms: ['sneaker', 'trainer'] } }),
  );
  ids.syn = synonyms.data.id;
  const rule = await must(
    'createMerchandisingRule',
    api.POST('/v1/search/merchandising', {
      body: {
        name: `${name} pin`,
        match_query: 'runner',
        match_type: 'contains',
        action: 'pin',
        product_id: ids.prod,
        pin_position: 0,
      },
    }),
  );
  ids.mr = rule.data.id;
  const block = await must(
    'blockSuggestion',
    api.POST('/v1/search/suggestion-blocks', { body: { query: `${name} blocked query` } }),
  );
  ids.sblk = block.data.id;

  // The storefront customer: a session (access and refresh token) and a pending password reset.
  const shop = storefront(app, created.keys.publishable_test.token);
  const email = `${name.toLowerCase()}.shopper@example.com`;
  const session = await registerCustomer(shop, { email, password: GOOD_PASSWORD });
  // An address in the signed-in customer's own book (/v1/me/addresses), apart from the merchant's customer's.
  const ownAddress = await must(
    'createCurrentCustomerAddress',
    signedIn(app, created.keys.publishable_test.token, session.access_token).POST('/v1/me/addresses', {
      body: { line1: `${name} Lane 1`, city: 'Berlin', country: 'DE', is_default: true },
    }),
  );
  await must('requestPasswordReset', shop.POST('/v1/auth/forgot-password', { body: { email } }));
  const outbox = await must(
    'listOutboxEmails',
    app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: created.project.id }, query: { to: email } },
    }),
  );
  ids.email = outbox.data[0].id;

  const events = await must('listStoreEvents', api.GET('/v1/events', { params: { query: { limit: 1 } } }));
  ids.sevt = events.data[0].id;

  return {
    name,
    project: created.project,
    keys: created.keys,
    api,
    ids,
    otherLocation: other.data.id,
    ownSlug,
    customer: {
      email,
      password: GOOD_PASSWORD,
      accessToken: session.access_token,
      refreshToken: session.refresh_token,
      resetToken: outbox.data[0].data.token as string,
      addressId: ownAddress.data.id,
    },
  };
}
