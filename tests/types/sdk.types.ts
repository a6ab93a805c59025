/**
 * Type-level tests of the SDK package (imported by name, as a third party does): each `@ts-expect-error`
 * pins a guarantee; if one is lost the directive is unused and `tsc` (run first by `npm test`) fails.
 */
import {
  type ApiError,
  type CommerceClient,
  createCommerceClient,
  createStorefrontClient,
  type ErrorCode,
  type Schema,
} from '@commerce-api/sdk';

const api = createCommerceClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_test_...' });

// Without `fields`, answers are whole objects: required properties are present.
export async function whole(): Promise<string> {
  const { data } = await api.GET('/v1/customers/{id}', { params: { path: { id: 'cus_1' } } });
  return data!.data.email;
}

// With `fields`, answers are sparse: only `id` is sure to be there.
export async function sparse(): Promise<string> {
  const { data } = await api.GET('/v1/customers/{id}', {
    params: { path: { id: 'cus_1' }, query: { fields: ['email'] } },
  });
  const id: string = data!.data.id;
  // @ts-expect-error email may be absent from a sparse answer
  const email: string = data!.data.email;
  return id + email;
}

// paginate yields the list's item type, sparse with `fields`, and takes list paths only.
export async function iterate(): Promise<void> {
  for await (const customer of api.paginate('/v1/customers', { query: { limit: 100, search: 'jane' } })) {
    const whole: Schema<'Customer'> = customer;
    void whole;
  }
  for await (const customer of api.paginate('/v1/customers', { query: { fields: ['email'] } })) {
    // @ts-expect-error a sparse customer is not a whole one
    const whole: Schema<'Customer'> = customer;
    void whole;
  }
  for await (const email of api.paginate('/platform/v1/projects/{id}/outbox', { path: { id: 'proj_1' } }))
    void email.subject;
  // @ts-expect-error a list with path parameters needs them
  api.paginate('/platform/v1/projects/{id}/outbox');
  // @ts-expect-error a single resource is not a list
  api.paginate('/v1/customers/{id}', { path: { id: 'cus_1' } });
  // @ts-expect-error the query is the list's own: no unknown parameters
  api.paginate('/v1/customers', { query: { q: 'jane' } });
}

// Error codes are the contract's.
export const code: ErrorCode = 'not_found';
// @ts-expect-error not an error code of the contract
export const unknownCode: ErrorCode = 'teapot';
export const fieldOf = (error: ApiError): string | undefined => error.field;

// Request bodies are exact: a property the contract does not declare does not compile, at any depth.
export async function exactBodies(): Promise<void> {
  await api.POST('/v1/draft-orders', { body: { currency: 'USD' } });
  // @ts-expect-error customer_idd is not a property of the draft order body
  await api.POST('/v1/draft-orders', { body: { currency: 'USD', customer_idd: 'x' } });
  await api.POST('/v1/draft-orders/{id}/items', {
    params: { path: { id: 'dord_1' } },
    body: { items: [{ variant_id: 'var_1', quantity: 1 }] },
  });
  await api.POST('/v1/draft-orders/{id}/items', {
    params: { path: { id: 'dord_1' } },
    // @ts-expect-error colour is not a property of a line item
    body: { items: [{ variant_id: 'var_1', quantity: 1, colour: 'red' }] },
  });
  // @ts-expect-error firstname is not a property of the customer update (first_name is)
  await api.PATCH('/v1/customers/{id}', { params: { path: { id: 'cus_1' } }, body: { firstname: 'Jane' } });
  // Open objects (metadata) still take any keys (their values are scalars).
  await api.POST('/v1/customers', {
    body: {
      email: 'jane@example.com',
      first_name: 'Jane',
      last_name: 'Doe',
      metadata: { anything: 'goes', any_key: 1 },
    },
  });
  // @ts-expect-error a required property is still required
  await api.POST('/v1/customers', { body: { email: 'jane@example.com' } });
}

// One storefront client: the catalogue, search and rates, and the signed-in customer's operations.
export async function storefront(): Promise<string> {
  const shop = createStorefrontClient({ baseUrl: 'http://127.0.0.1:3000', publishableKey: 'pk_test_...' });
  await shop.GET('/v1/search', { params: { query: { q: 'shirt' } } });
  // @ts-expect-error the rate lookup body has no property zip (postal_code)
  await shop.POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 100, currency: 'USD', zip: '10001' } });
  shop.signIn('eyJ...');
  const { data } = await shop.GET('/v1/me');
  shop.signOut();
  // Only what a publishable key (and a customer's token) may call: secret-key operations do not compile.
  // @ts-expect-error '/v1/customers is not a GET operation of this client'
  await shop.GET('/v1/customers');
  // @ts-expect-error createCustomer needs a secret key
  await shop.POST('/v1/customers', { body: { email: 'a@example.com', first_name: 'A', last_name: 'B' } });
  // @ts-expect-error the customers list is not the storefront's to page through
  shop.paginate('/v1/customers');
  // @ts-expect-error a path that does not exist is named too
  await shop.GET('/v1/prodcts');
  for await (const product of shop.paginate('/v1/products', { query: { limit: 10 } })) void product.title;
  // The signed-in customer's own orders and address book.
  for await (const order of shop.paginate('/v1/me/orders', { query: { limit: 10 } })) void order.fulfillments;
  const mine = await shop.GET('/v1/me/orders/{id}', { params: { path: { id: 'ord_1' } } });
  // @ts-expect-error a customer's order has no draft_order_id (merchant-only)
  void mine.data!.data.draft_order_id;
  await shop.POST('/v1/me/addresses', { body: { line1: 'Friedrichstrasse 68', city: 'Berlin', country: 'DE' } });
  await shop.PATCH('/v1/me/addresses/{id}', { params: { path: { id: 'addr_1' } }, body: { is_default: true } });
  await shop.DELETE('/v1/me/addresses/{id}', { params: { path: { id: 'addr_1' } } });
  // @ts-expect-error '/v1/addresses/{id} is not a DELETE operation of this client' (the merchant's)
  await shop.DELETE('/v1/addresses/{id}', { params: { path: { id: 'addr_1' } } });
  // A menu by handle, with its whole tree; writing menus is the merchant's.
  const menu = await shop.GET('/v1/navigation/{id}', { params: { path: { id: 'main-menu' } } });
  void menu.data!.data.items[0].items[0].handle;
  // @ts-expect-error updateNavigationMenu needs a secret key
  await shop.PATCH('/v1/navigation/{id}', { params: { path: { id: 'main-menu' } }, body: { title: 'Main' } });
  return data!.data.email;
}

// The secret-key client: a wrong path is a type error naming it, not one about the number of arguments.
export async function wrongPath(api: CommerceClient): Promise<void> {
  // @ts-expect-error '/v1/customer is not a GET operation of this client'
  await api.GET('/v1/customer');
  await api.GET('/v1/customers/{id}', { params: { path: { id: 'cus_1' } } });
  // @ts-expect-error the path parameter is still required
  await api.GET('/v1/customers/{id}');
}
