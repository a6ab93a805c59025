import { expect } from '@jest/globals';
import { createCommerceClient, type CommerceClient, type components } from '@commerce-api/sdk';
import type { TestApp } from '../setup/test-app.js';

type CustomerRegister = components['schemas']['CustomerRegister'];
export type AuthSession = components['schemas']['AuthSession'];

/** A password that satisfies the rule; tests that need several use different ones. */
export const GOOD_PASSWORD = 'Winter-Trail-2026';

let counter = 0;

/** A registration body with a unique email and a valid password. */
export function buildRegistration(overrides: Partial<CustomerRegister> = {}): CustomerRegister {
  counter += 1;
  return {
    email: `shopper${counter}.${Date.now()}@example.com`,
    password: GOOD_PASSWORD,
    first_name: 'Jamie',
    last_name: `Shopper${counter}`,
    ...overrides,
  };
}

/** The storefront's client: the publishable key in X-API-Key. */
export function storefront(app: TestApp, publishableKey: string): CommerceClient {
  return createCommerceClient({ baseUrl: app.baseUrl, publishableKey });
}

/** The signed-in customer's client for /v1/me: the publishable key plus the access token as Bearer. */
export function signedIn(app: TestApp, publishableKey: string, accessToken: string): CommerceClient {
  return createCommerceClient({ baseUrl: app.baseUrl, publishableKey, apiKey: accessToken });
}

/** Registers a customer through the API and returns the token response. */
export async function registerCustomer(
  api: CommerceClient,
  overrides: Partial<CustomerRegister> = {},
): Promise<AuthSession> {
  const { data, error, response } = await api.POST('/v1/auth/register', { body: buildRegistration(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Decodes a JWT's payload without checking it (tests only). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}
