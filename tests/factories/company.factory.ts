import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type CompanyCreate = components['schemas']['CompanyCreate'];
export type CompanyResource = components['schemas']['Company'];

let counter = 0;

/** A company creation body with a unique name. */
export function buildCompany(overrides: Partial<CompanyCreate> = {}): CompanyCreate {
  counter += 1;
  return { name: `Company ${counter}`, ...overrides };
}

/** Creates a company through the API and returns it. */
export async function createCompany(
  api: CommerceClient,
  overrides: Partial<CompanyCreate> = {},
): Promise<CompanyResource> {
  const { data, error, response } = await api.POST('/v1/companies', { body: buildCompany(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}
