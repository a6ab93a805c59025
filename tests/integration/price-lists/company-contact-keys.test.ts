import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { createCompany, type CompanyResource } from '../../factories/company.factory.js';
import { GOOD_PASSWORD, registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { useStore } from '../../setup/store.js';

// A company's price list reaches the customers who are its contacts. Storefront registration does not prove an
// e-mail address, so a contact matched by e-mail counts only for a customer whose e-mail is verified (a password
// reset sent to it was completed); a contact the merchant linked to a customer (customer_id) counts whatever the
// customer's e-mail.
const store = useStore({ project: { domain: 'contact-keys.example.com', domain_verified: true } });
const { app, api } = store;
const BASE = 2500;
const BIGCORP = 1900;
let product: ProductResource;
let company: CompanyResource;
let shop: CommerceClient;

beforeAll(async () => {
  product = await createProduct(api, { variants: [{ title: 'Only', price: BASE }] });
  const list = await createPriceList(api, { slug: 'bigcorp' });
  await setPrices(api, list.id, [{ variant_id: product.variants[0].id, amount: BIGCORP }]);
  company = await createCompany(api, { name: 'BigCorp', active_price_key: 'bigcorp' });
  const contact = await api.POST('/v1/companies/{id}/contacts', {
    params: { path: { id: company.id } },
    body: { name: 'Purchasing', email: 'purchasing@bigcorp.example', role: 'Purchasing' },
  });
  expect(contact.response.status).toBe(201);
  expect(contact.data!.data.customer_id).toBeNull();
  shop = storefront(app, store.keys.publishable_test.token);
});

async function customerPrice(accessToken: string): Promise<number | undefined> {
  const client = signedIn(app, store.keys.publishable_test.token, accessToken);
  const { data, error } = await client.GET('/v1/products/{id}', { params: { path: { id: product.id } } });
  expect(error).toBeUndefined();
  return (data!.data as { customer_price?: number }).customer_price;
}

/** Completes a password reset sent to `email` (which verifies it) and signs in again: the new access token. */
async function verifyByReset(email: string): Promise<string> {
  expect((await shop.POST('/v1/auth/forgot-password', { body: { email } })).response.status).toBe(200);
  const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
    params: { path: { id: store.project.id }, query: { to: email } },
  });
  const token = outbox.data!.data[0].data.token as string;
  const password = `${GOOD_PASSWORD}-2`;
  expect((await shop.POST('/v1/auth/reset-password', { body: { token, password } })).response.status).toBe(200);
  const login = await shop.POST('/v1/auth/login', { body: { email, password } });
  expect(login.data!.data.customer.email_verified).toBe(true);
  return login.data!.data.access_token;
}

describe('company price keys by contact', () => {
  test("a stranger who registers a company contact's e-mail does not see the company's prices", async () => {
    const stranger = await registerCustomer(shop, { email: 'Purchasing@BigCorp.example' });
    expect(stranger.customer.email_verified).toBe(false);
    expect(await customerPrice(stranger.access_token)).toBe(BASE);
    // Nor in a draft order the merchant opens for that account.
    const draft = await createDraftOrder(api, { customer_id: stranger.customer.id, customer_email: undefined });
    const [item] = await addItems(api, draft.id, [{ variant_id: product.variants[0].id, quantity: 1 }]);
    expect(item).toMatchObject({ unit_price: BASE, price_list_id: null });

    // Once the owner of the address verifies it (a completed password reset), the contact counts.
    const verified = await verifyByReset('purchasing@bigcorp.example');
    expect(await customerPrice(verified)).toBe(BIGCORP);
  });

  test("a verified e-mail matches a contact's e-mail literally: _ and % in it are no wildcards", async () => {
    // purc_asing@ and purc%@ would match purchasing@ as LIKE patterns; they are other mailboxes.
    for (const email of ['purc_asing@bigcorp.example', 'purc%@bigcorp.example']) {
      await registerCustomer(shop, { email });
      const verified = await verifyByReset(email);
      expect(await customerPrice(verified)).toBe(BASE);
    }
  });

  test('a contact linked to a customer (customer_id) gives the company list to that account; unlinking takes it away', async () => {
    const buyer = await registerCustomer(shop, { email: `buyer.${Date.now()}@elsewhere.example` });
    expect(await customerPrice(buyer.access_token)).toBe(BASE);
    const linked = await api.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: company.id } },
      body: { name: 'Buyer', customer_id: buyer.customer.id },
    });
    expect(linked.response.status).toBe(201);
    expect(linked.data!.data).toMatchObject({ customer_id: buyer.customer.id, email: null });
    expect(await customerPrice(buyer.access_token)).toBe(BIGCORP);

    const unlinked = await api.PATCH('/v1/companies/{id}/contacts/{contact_id}', {
      params: { path: { id: company.id, contact_id: linked.data!.data.id } },
      body: { customer_id: null },
    });
    expect(unlinked.data!.data.customer_id).toBeNull();
    expect(await customerPrice(buyer.access_token)).toBe(BASE);
  });

  test("customer_id must name a live customer of the project: another project's customer or an unknown id is 400, nothing written", async () => {
    const elsewhere = await createProject(app, { domain: 'elsewhere.example.com', domain_verified: true });
    const foreign = await registerCustomer(storefront(app, elsewhere.keys.publishable_test.token));
    for (const customerId of [foreign.customer.id, 'cus_01jd5p0a2c4e6g8j0l2n4q6s8u']) {
      const refused = await api.POST('/v1/companies/{id}/contacts', {
        params: { path: { id: company.id } },
        body: { name: 'Nobody', customer_id: customerId },
      });
      expect(refused.response.status).toBe(400);
      expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    }
    const contacts = await api.GET('/v1/companies/{id}/contacts', { params: { path: { id: company.id } } });
    expect(contacts.data!.data.map((c) => c.name)).not.toContain('Nobody');
  });
});
