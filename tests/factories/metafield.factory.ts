import { expect } from '@jest/globals';
import type { CommerceClient, components } from '../../src/sdk/index.js';

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
export async function createDefinition(api: CommerceClient, overrides: Partial<DefinitionCreate> = {}): Promise<DefinitionResource> {
  const { data, error, response } = await api.POST('/v1/store/metafields', { body: buildDefinition(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}
