import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type CustomerCreate = components['schemas']['CustomerCreate'];
export type CustomerResource = components['schemas']['Customer'];

let counter = 0;

/** A customer creation body with realistic, unique defaults. */
export function buildCustomer(overrides: Partial<CustomerCreate> = {}): CustomerCreate {
  counter += 1;
  return {
    email: `customer${counter}.${Date.now()}@example.com`,
    first_name: 'Alex',
    last_name: `Tester${counter}`,
    ...overrides,
  };
}

/** Creates a customer through the API and returns it. */
export async function createCustomer(
  api: CommerceClient,
  overrides: Partial<CustomerCreate> = {},
): Promise<CustomerResource> {
  const { data, error, response } = await api.POST('/v1/customers', { body: buildCustomer(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}
