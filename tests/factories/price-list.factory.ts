import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type PriceListCreate = components['schemas']['PriceListCreate'];
type PriceInput = components['schemas']['PriceListPriceInput'];
export type PriceListResource = components['schemas']['PriceList'];
export type PriceListPriceResource = components['schemas']['PriceListPrice'];

let counter = 0;

/** A price list creation body with a unique slug, in USD. */
export function buildPriceList(overrides: Partial<PriceListCreate> = {}): PriceListCreate {
  counter += 1;
  return { slug: `list-${counter}`, name: `Price list ${counter}`, currency: 'USD', ...overrides };
}

/** Creates a price list through the API and returns it. */
export async function createPriceList(
  api: CommerceClient,
  overrides: Partial<PriceListCreate> = {},
): Promise<PriceListResource> {
  const { data, error, response } = await api.POST('/v1/price-lists', { body: buildPriceList(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Sets prices of a list through the API and returns the stored ones. */
export async function setPrices(
  api: CommerceClient,
  priceListId: string,
  prices: PriceInput[],
): Promise<PriceListPriceResource[]> {
  const { data, error, response } = await api.PUT('/v1/price-lists/{id}/prices', {
    params: { path: { id: priceListId } },
    body: { prices },
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(200);
  return data!.data;
}
