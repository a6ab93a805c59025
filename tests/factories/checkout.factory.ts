import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type CheckoutCreate = components['schemas']['CheckoutCreate'];
export type CheckoutResource = components['schemas']['Checkout'];

/** A created checkout: the checkout and the secret that reaches it. */
export interface StartedCheckout {
  checkout: CheckoutResource;
  secret: string;
}

/** Starts a checkout through the storefront client and returns it with its client secret. */
export async function startCheckout(shop: CommerceClient, body: CheckoutCreate): Promise<StartedCheckout> {
  const { data, error, response } = await shop.POST('/v1/checkouts', { body });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return { checkout: data!.data, secret: data!.client_secret };
}

/** The request parameters naming a checkout and carrying its secret (no secret: a signed-in customer's own). */
export const withSecret = (id: string, secret?: string) => ({
  params: { path: { id }, header: secret === undefined ? {} : { 'X-Checkout-Secret': secret } },
});

/** A German shipping address. */
export const BERLIN = {
  first_name: 'Jane',
  last_name: 'Doe',
  line1: 'Friedrichstrasse 68',
  city: 'Berlin',
  postal_code: '10117',
  country: 'DE',
};
