import { describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder, readDraft } from '../../factories/draft-order.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

const app = useApp();
const rates = [
  { country: 'DE', rate: 0.19 },
  { country: 'FR', rate: 0.2 },
  { country: 'US', rate: 0.05 },
  { country: 'US', state: 'CA', rate: 0.0725 },
];
const germany = { line1: 'Friedrichstrasse 68', city: 'Berlin', country: 'DE' };

async function taxedStore(inclusive: boolean): Promise<{ store: CreatedProject; api: CommerceClient }> {
  const store = await createProject(app, { currency: 'EUR', tax: { enabled: true, inclusive, rates } });
  return { store, api: app.client(store.keys.secret_test.token) };
}

describe('draft order tax (project tax setting enabled)', () => {
  test('a variant item and a custom item, shipped to a taxed country, with shipping and discount: half-up per line', async () => {
    const { api } = await taxedStore(false);
    const product = await createProduct(api, {
      title: 'Trail Runner 2',
      variants: [{ title: 'EU 42', price: 11900, sale_price: 9950 }],
    });
    const draft = await createDraftOrder(api, { currency: product.currency, shipping_address: germany });
    await addItems(api, draft.id, [
      { variant_id: product.variants[0].id, quantity: 1 }, // 9950 x 0.19 = 1890.5 -> 1891
      { title: 'Engraving', unit_price: 1050, quantity: 1 }, // 1050 x 0.19 = 199.5 -> 200
    ]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { shipping_cost: 490, discount: 1000 },
    });
    expect(data!.data).toMatchObject({
      subtotal: 11000,
      tax: 2091,
      tax_inclusive: false,
      tax_data: {
        total_tax: 2091,
        tax_inclusive: false,
        source: 'store_rates',
        tax_lines: [{ name: 'DE tax 19%', rate: 0.19, amount: 2091 }],
      },
      shipping_cost: 490,
      discount: 1000,
      total: 11000 + 2091 + 490 - 1000,
    });
  });

  test('the shipping address decides, else the billing address; a state rate wins over the country rate', async () => {
    const { api } = await taxedStore(false);
    const draft = await createDraftOrder(api, {
      currency: 'EUR',
      billing_address: { line1: 'Rue de Rivoli 10', city: 'Paris', country: 'FR' },
    });
    await addItems(api, draft.id, [{ title: 'Service', unit_price: 10000, quantity: 1 }]);
    expect((await readDraft(api, draft.id)).tax).toBe(2000);
    const shipped = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { shipping_address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US' } },
    });
    expect(shipped.data!.data).toMatchObject({
      tax: 725,
      tax_data: { tax_lines: [{ name: 'US-CA tax 7.25%', rate: 0.0725, amount: 725 }] },
    });
    const other = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { shipping_address: { line1: '5th Ave', city: 'New York', state: 'NY', country: 'US' } },
    });
    expect(other.data!.data.tax).toBe(500);
    const cleared = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { shipping_address: null, billing_address: null },
    });
    expect(cleared.data!.data).toMatchObject({ tax: 0, total: 10000, tax_data: { total_tax: 0, tax_lines: [] } });
  });

  test('a country without a rate has no tax', async () => {
    const { api } = await taxedStore(false);
    const draft = await createDraftOrder(api, {
      currency: 'EUR',
      shipping_address: { line1: '1-1 Marunouchi', city: 'Tokyo', country: 'JP' },
    });
    await addItems(api, draft.id, [{ title: 'Service', unit_price: 10000, quantity: 1 }]);
    expect(await readDraft(api, draft.id)).toMatchObject({ tax: 0, total: 10000, tax_data: { tax_lines: [] } });
  });

  test('a tax sent by PATCH is ignored', async () => {
    const { api } = await taxedStore(false);
    const draft = await createDraftOrder(api, { currency: 'EUR', shipping_address: germany });
    await addItems(api, draft.id, [{ title: 'Service', unit_price: 1000, quantity: 1 }]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { tax: 5 } });
    expect(data!.data).toMatchObject({ tax: 190, total: 1190 });
  });

  test('inclusive prices: the tax is the included part, reported but not added to the total', async () => {
    const { api } = await taxedStore(true);
    const draft = await createDraftOrder(api, { currency: 'EUR', shipping_address: germany });
    await addItems(api, draft.id, [
      { title: 'Jacket', unit_price: 11900, quantity: 1 },
      { title: 'Cap', unit_price: 1000, quantity: 1 },
    ]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { shipping_cost: 500 } });
    // 11900 x 0.19 / 1.19 = 1900; 1000 x 0.19 / 1.19 = 159.66 -> 160
    expect(data!.data).toMatchObject({
      subtotal: 12900,
      tax: 2060,
      tax_inclusive: true,
      tax_data: { tax_inclusive: true, total_tax: 2060 },
      total: 13400,
    });
  });

  test('a change of the project tax setting applies at the next write of a draft', async () => {
    const { store, api } = await taxedStore(false);
    const draft = await createDraftOrder(api, { currency: 'EUR', shipping_address: germany });
    await addItems(api, draft.id, [{ title: 'Service', unit_price: 1000, quantity: 1 }]);
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: store.project.id } },
      body: { tax: { enabled: false, inclusive: false, rates: [] } },
    });
    const { data } = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { tax: 50 } });
    expect(data!.data).toMatchObject({ tax: 50, tax_data: null, tax_inclusive: false, total: 1050 });
  });
});

describe('draft order tax (disabled)', () => {
  test('tax is what PATCH set, added to the total; tax_data null', async () => {
    const store = await createProject(app);
    const api = app.client(store.keys.secret_test.token);
    const draft = await createDraftOrder(api, { shipping_address: germany });
    await addItems(api, draft.id, [{ title: 'Service', unit_price: 1000, quantity: 3 }]);
    const { data } = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { tax: 123, shipping_cost: 10, discount: 33 },
    });
    expect(data!.data).toMatchObject({ subtotal: 3000, tax: 123, tax_data: null, tax_inclusive: false, total: 3100 });
  });
});
