import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type DefinitionCreate = components['schemas']['MetafieldDefinitionCreate'];
export type DefinitionResource = components['schemas']['MetafieldDefinition'];
export type MetafieldValues = components['schemas']['MetafieldValues'];

let counter = 0;

/** A definition creation body with realistic defaults (a product single_line_text with a unique label). */
export function buildDefinition(overrides: Partial<DefinitionCreate> = {}): DefinitionCreate {
  counter += 1;
  return { label: `Field ${counter}`, owner_type: 'product', value_type: 'single_line_text', ...overrides };
}

/** Creates a metafield definition through the API and returns it. */
export async function createDefinition(
  api: CommerceClient,
  overrides: Partial<DefinitionCreate> = {},
): Promise<DefinitionResource> {
  const { data, error, response } = await api.POST('/v1/store/metafields', { body: buildDefinition(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** One resource of each owner type, created through the API (the order by completing a draft with a custom item). */
export interface Owners {
  product: string;
  variant: string;
  collection: string;
  customer: string;
  order: string;
}

/** Creates a product (with its variant), a collection, a customer and an order in the key's project. */
export async function createOwners(api: CommerceClient): Promise<Owners> {
  const product = await api.POST('/v1/products', {
    body: { title: 'Owner product', variants: [{ title: 'Default', price: 1500 }] },
  });
  const collection = await api.POST('/v1/collections', { body: { title: 'Owner collection' } });
  const customer = await api.POST('/v1/customers', {
    body: { email: `owner.${Date.now()}.${Math.random()}@example.com`, first_name: 'Olga', last_name: 'Owner' },
  });
  const draft = await api.POST('/v1/draft-orders', { body: { currency: 'USD', customer_email: 'buyer@example.com' } });
  const id = draft.data!.data.id;
  await api.POST('/v1/draft-orders/{id}/items', {
    params: { path: { id } },
    body: { items: [{ title: 'Gift card', unit_price: 2500, quantity: 1 }] },
  });
  const order = await api.POST('/v1/draft-orders/{id}/complete', { params: { path: { id } } });
  for (const created of [product, collection, customer, order]) expect(created.response.status).toBe(201);
  return {
    product: product.data!.data.id,
    variant: product.data!.data.variants[0].id,
    collection: collection.data!.data.id,
    customer: customer.data!.data.id,
    order: order.data!.data.id,
  };
}

/** Registers a file through the API and returns its id (img_ for image/* types, file_ otherwise). */
export async function createFile(api: CommerceClient, mimeType: string): Promise<string> {
  const extension = mimeType.split('/')[1];
  const { data, response } = await api.POST('/v1/files', {
    body: {
      filename: `asset.${extension}`,
      mime_type: mimeType,
      size: 1024,
      url: `https://cdn.example.com/asset.${extension}`,
    },
  });
  expect(response.status).toBe(201);
  return data!.data.id;
}
