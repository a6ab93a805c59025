import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type ProductCreate = components['schemas']['ProductCreate'];
export type ProductResource = components['schemas']['Product'];

let counter = 0;

/** A product creation body with one variant and realistic defaults. */
export function buildProduct(overrides: Partial<ProductCreate> = {}): ProductCreate {
  counter += 1;
  return { title: `Test Product ${counter}`, variants: [{ title: 'Default', price: 1000 + counter }], ...overrides };
}

/** Creates a product through the API and returns it. */
export async function createProduct(
  api: CommerceClient,
  overrides: Partial<ProductCreate> = {},
): Promise<ProductResource> {
  const { data, error, response } = await api.POST('/v1/products', { body: buildProduct(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}
