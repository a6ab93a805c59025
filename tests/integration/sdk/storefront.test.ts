import { beforeAll, describe, expect, test } from '@jest/globals';
import { createStorefrontClient, unwrap, type StorefrontClient } from '@commerce-api/sdk';
import { operationIndex, type OperationId } from '../../../src/generated/operations.js';
import { payToken } from '../../../src/modules/draft-orders/pay-link.js';
import { useStore } from '../../setup/store.js';

// One storefront client, made from the publishable key alone, reaches every operation that takes a
// publishable key: the catalogue, search, shipping rates and menus as a guest and signed in, and the customer's
// own operations once signed in.
const store = useStore();
let shop: StorefrontClient;
const ids = { product: '', variant: '', collection: '' };
const email = 'one.client@storefront.example';
const session = { access: '', refresh: '' };

beforeAll(async () => {
  shop = createStorefrontClient({ baseUrl: store.app.baseUrl, publishableKey: store.keys.publishable_test.token });
  const { data: product } = await unwrap(
    store.api.POST('/v1/products', {
      body: { title: 'Harbour Raincoat', status: 'active', variants: [{ title: 'M', price: 12900, sku: 'HR-M' }] },
    }),
  );
  ids.product = product.id;
  ids.variant = product.variants[0].id;
  const { data: collection } = await unwrap(store.api.POST('/v1/collections', { body: { title: 'Rainwear' } }));
  ids.collection = collection.id;
  await unwrap(
    store.api.POST('/v1/navigation', {
      body: { title: 'Main menu', items: [{ title: 'Rainwear', type: 'collection', target: collection.id }] },
    }),
  );
  const zone = await unwrap(store.api.POST('/v1/shipping/zones', { body: { name: 'Domestic', countries: ['US'] } }));
  await unwrap(
    store.api.POST('/v1/shipping/zones/{id}/rates', {
      params: { path: { id: zone.data.id } },
      body: { name: 'Standard', price: 500, currency: 'USD' },
    }),
  );
});

/** Each publishable operation, called through the one client; answers its status. */
const catalogue: Partial<Record<OperationId, () => Promise<{ response: Response }>>> = {
  listProducts: () => shop.GET('/v1/products', { params: { query: { limit: 5 } } }),
  getProduct: () => shop.GET('/v1/products/{id}', { params: { path: { id: ids.product } } }),
  getVariant: () => shop.GET('/v1/variants/{id}', { params: { path: { id: ids.variant } } }),
  getProductMetafields: () => shop.GET('/v1/products/{id}/metafields', { params: { path: { id: ids.product } } }),
  getVariantMetafields: () => shop.GET('/v1/variants/{id}/metafields', { params: { path: { id: ids.variant } } }),
  listCollections: () => shop.GET('/v1/collections'),
  getCollection: () => shop.GET('/v1/collections/{id}', { params: { path: { id: ids.collection } } }),
  getCollectionMetafields: () =>
    shop.GET('/v1/collections/{id}/metafields', { params: { path: { id: ids.collection } } }),
  searchCatalog: () => shop.GET('/v1/search', { params: { query: { q: 'raincoat' } } }),
  suggestSearch: () => shop.GET('/v1/search/suggest', { params: { query: { q: 'harb' } } }),
  lookupShippingRates: () =>
    shop.POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 12900, currency: 'USD' } }),
  getNavigationMenu: () => shop.GET('/v1/navigation/{id}', { params: { path: { id: 'main-menu' } } }),
};
const signedInOnly: Partial<Record<OperationId, () => Promise<{ response: Response }>>> = {
  getCurrentCustomer: () => shop.GET('/v1/me'),
  updateCurrentCustomer: () => shop.PATCH('/v1/me', { body: { first_name: 'Una' } }),
};
const called = new Set<OperationId>();
async function expectStatus(id: OperationId, call: () => Promise<{ response: Response }>, status: number) {
  const { response } = await call();
  expect({ operation: id, status: response.status }).toEqual({ operation: id, status });
  if (status < 300) called.add(id);
}

/** The signed-in customer's orders (one the merchant completed for them) and address book, through the client. */
async function ownOrdersAndAddresses(customerId: string): Promise<void> {
  const draft = await unwrap(
    store.api.POST('/v1/draft-orders', { body: { currency: 'USD', customer_id: customerId } }),
  );
  await unwrap(
    store.api.POST('/v1/draft-orders/{id}/items', {
      params: { path: { id: draft.data.id } },
      body: { items: [{ title: 'Gift wrapping', unit_price: 400, quantity: 1 }] },
    }),
  );
  const order = await unwrap(
    store.api.POST('/v1/draft-orders/{id}/complete', { params: { path: { id: draft.data.id } } }),
  );
  const orders = await unwrap(shop.GET('/v1/me/orders'));
  called.add('listCurrentCustomerOrders');
  expect(orders.data.map((o) => o.id)).toEqual([order.data.id]);
  const mine = await unwrap(shop.GET('/v1/me/orders/{id}', { params: { path: { id: order.data.id } } }));
  called.add('getCurrentCustomerOrder');
  expect(mine.data.line_items.map((item) => item.title)).toEqual(['Gift wrapping']);

  const credit = await unwrap(shop.GET('/v1/me/store-credit'));
  called.add('getCurrentCustomerStoreCredit');
  expect(credit.data.balance).toBe(0);
  const history = await unwrap(shop.GET('/v1/me/store-credit/transactions'));
  called.add('listCurrentCustomerStoreCreditTransactions');
  expect(history.data).toEqual([]);

  const address = await unwrap(
    shop.POST('/v1/me/addresses', { body: { line1: '1 Harbour Way', city: 'Portland', country: 'US' } }),
  );
  called.add('createCurrentCustomerAddress');
  const byId = { params: { path: { id: address.data.id } } };
  await expectStatus('listCurrentCustomerAddresses', () => shop.GET('/v1/me/addresses'), 200);
  await expectStatus('getCurrentCustomerAddress', () => shop.GET('/v1/me/addresses/{id}', byId), 200);
  await expectStatus(
    'updateCurrentCustomerAddress',
    () => shop.PATCH('/v1/me/addresses/{id}', { ...byId, body: { is_default: true } }),
    200,
  );
  await expectStatus('deleteCurrentCustomerAddress', () => shop.DELETE('/v1/me/addresses/{id}', byId), 204);
}

describe('createStorefrontClient: one client, the publishable key only', () => {
  test('as a guest: every catalogue, search and rate operation answers 200; /v1/me 401', async () => {
    for (const [id, call] of Object.entries(catalogue)) await expectStatus(id as OperationId, call, 200);
    for (const [id, call] of Object.entries(signedInOnly)) await expectStatus(id as OperationId, call, 401);
    const rates = await unwrap(
      shop.POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 12900, currency: 'USD' } }),
    );
    expect(rates.data.map((rate) => rate.name)).toEqual(['Standard']);
    const search = await unwrap(shop.GET('/v1/search', { params: { query: { q: 'raincoat' } } }));
    expect(search.data.products.data.map((product) => product.id)).toEqual([ids.product]);
  });

  test('signed in: the same client reaches /v1/me and still the catalogue; every customer-auth operation works', async () => {
    const registered = await unwrap(
      shop.POST('/v1/auth/register', {
        body: { email, password: 'Winter-Trail-2026', first_name: 'Una', last_name: 'Client' },
      }),
    );
    called.add('registerCustomer');
    shop.signIn(registered.data.access_token);
    expect(shop.signedIn).toBe(true);
    for (const [id, call] of Object.entries(signedInOnly)) await expectStatus(id as OperationId, call, 200);
    for (const [id, call] of Object.entries(catalogue)) await expectStatus(id as OperationId, call, 200);
    await ownOrdersAndAddresses(registered.data.customer.id);

    const refreshed = await unwrap(
      shop.POST('/v1/auth/token', { body: { refresh_token: registered.data.refresh_token } }),
    );
    called.add('refreshCustomerToken');
    shop.signIn(refreshed.data.access_token);
    const changed = await unwrap(
      shop.POST('/v1/me/password', {
        body: { current_password: 'Winter-Trail-2026', new_password: 'Spring-Trail-2027' },
      }),
    );
    called.add('changeCurrentCustomerPassword');
    shop.signIn(changed.data.access_token);
    expect((await unwrap(shop.GET('/v1/me'))).data.email).toBe(email);
    session.refresh = changed.data.refresh_token;

    await expectStatus(
      'logoutCustomer',
      () => shop.POST('/v1/auth/logout', { body: { refresh_token: session.refresh } }),
      204,
    );
    shop.signOut();
    expect(shop.signedIn).toBe(false);
    await expectStatus('getCurrentCustomer', () => shop.GET('/v1/me'), 401);

    await expectStatus(
      'loginCustomer',
      () => shop.POST('/v1/auth/login', { body: { email, password: 'Spring-Trail-2027' } }),
      200,
    );
    await expectStatus('requestPasswordReset', () => shop.POST('/v1/auth/forgot-password', { body: { email } }), 200);
    const outbox = await unwrap(
      store.app.platform.GET('/platform/v1/projects/{id}/outbox', {
        params: { path: { id: store.project.id }, query: { to: email } },
      }),
    );
    const token = outbox.data[0].data.token as string;
    await expectStatus(
      'resetPassword',
      () => shop.POST('/v1/auth/reset-password', { body: { token, password: 'Autumn-Trail-2028' } }),
      200,
    );
  });

  test('a guest checkout through the same client: create, lines, address, rate, complete into an order', async () => {
    await unwrap(
      store.api.PUT('/v1/inventory-levels', {
        body: { variant_id: ids.variant, location_id: store.project.default_location_id, available: 3 },
      }),
    );
    const created = await unwrap(
      shop.POST('/v1/checkouts', { body: { currency: 'USD', email: 'guest@storefront.example' } }),
    );
    called.add('createCheckout');
    const at = { path: { id: created.data.id }, header: { 'X-Checkout-Secret': created.client_secret } };
    const added = await unwrap(
      shop.POST('/v1/checkouts/{id}/lines', {
        params: at,
        body: { lines: [{ variant_id: ids.variant, quantity: 1 }] },
      }),
    );
    called.add('addCheckoutLines');
    const line = { path: { ...at.path, line_id: added.data.lines[0].id }, header: at.header };
    await expectStatus(
      'updateCheckoutLine',
      () => shop.PATCH('/v1/checkouts/{id}/lines/{line_id}', { params: line, body: { quantity: 2 } }),
      200,
    );
    await expectStatus(
      'updateCheckout',
      () =>
        shop.PATCH('/v1/checkouts/{id}', {
          params: at,
          body: { shipping_address: { line1: '350 Fifth Avenue', city: 'New York', state: 'NY', country: 'US' } },
        }),
      200,
    );
    const rates = await unwrap(shop.GET('/v1/checkouts/{id}/shipping-rates', { params: at }));
    called.add('listCheckoutShippingRates');
    await unwrap(shop.PATCH('/v1/checkouts/{id}', { params: at, body: { shipping_rate_id: rates.data[0].id } }));
    await expectStatus('getCheckout', () => shop.GET('/v1/checkouts/{id}', { params: at }), 200);
    const extra = await unwrap(
      shop.POST('/v1/checkouts/{id}/lines', {
        params: at,
        body: { lines: [{ variant_id: ids.variant, quantity: 1 }] },
      }),
    );
    expect(extra.data.lines[0].quantity).toBe(3);
    await expectStatus(
      'removeCheckoutLine',
      () => shop.DELETE('/v1/checkouts/{id}/lines/{line_id}', { params: line }),
      204,
    );
    await unwrap(
      shop.POST('/v1/checkouts/{id}/lines', {
        params: at,
        body: { lines: [{ variant_id: ids.variant, quantity: 1 }] },
      }),
    );
    await unwrap(shop.PATCH('/v1/checkouts/{id}', { params: at, body: { shipping_rate_id: rates.data[0].id } }));
    const { response, data } = await shop.POST('/v1/checkouts/{id}/complete', { params: at, body: {} });
    expect(response.status).toBe(201);
    called.add('completeCheckout');
    expect(data!.data).toMatchObject({ financial_status: 'pending', total: 12900 + 500, checkout_id: created.data.id });
  });

  test("a draft's pay link through the same client: its checkout opened from the token and completed", async () => {
    const draft = await unwrap(
      store.api.POST('/v1/draft-orders', { body: { currency: 'USD', customer_email: 'payer@storefront.example' } }),
    );
    await unwrap(
      store.api.POST('/v1/draft-orders/{id}/items', {
        params: { path: { id: draft.data.id } },
        body: { items: [{ variant_id: ids.variant, quantity: 1 }] },
      }),
    );
    await unwrap(store.api.POST('/v1/draft-orders/{id}/send', { params: { path: { id: draft.data.id } } }));
    // This project has no verified domain, so its e-mail carries no link; the token is the one a link would carry.
    const project = await store.app.deps.db.project.findUniqueOrThrow({ where: { id: store.project.id } });
    const opened = await unwrap(
      shop.POST('/v1/checkouts/from-draft', { body: { token: payToken(project, draft.data.id) } }),
    );
    called.add('createCheckoutFromDraft');
    expect(opened.data.draft_order_id).toBe(draft.data.id);
    const at = { path: { id: opened.data.id }, header: { 'X-Checkout-Secret': opened.client_secret } };
    const { response, data } = await shop.POST('/v1/checkouts/{id}/complete', { params: at, body: {} });
    expect(response.status).toBe(201);
    expect(data!.data).toMatchObject({ draft_order_id: draft.data.id, checkout_id: opened.data.id });
  });

  test('every publishable-key operation of the operation index was driven through the client', () => {
    const publishable = operationIndex
      .filter((op) => op.auth === 'publishable' || op.auth === 'customer')
      .map((op) => op.operationId)
      .sort();
    expect([...called].sort()).toEqual(publishable);
  });
});
