import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type ZoneCreate = components['schemas']['ShippingZoneCreate'];
type RateCreate = components['schemas']['ShippingRateCreate'];
export type ZoneResource = components['schemas']['ShippingZone'];
export type RateResource = components['schemas']['ShippingRate'];

let counter = 0;

/** A zone creation body with realistic defaults. */
export function buildZone(overrides: Partial<ZoneCreate> = {}): ZoneCreate {
  counter += 1;
  return { name: `Zone ${counter}`, countries: ['US', 'CA'], ...overrides };
}

/** A flat rate creation body (USD, 990 cents) with realistic defaults. */
export function buildRate(overrides: Partial<RateCreate> = {}): RateCreate {
  counter += 1;
  return { name: `Rate ${counter}`, price: 990, currency: 'USD', ...overrides };
}

/** Creates a zone through the API and returns it. */
export async function createZone(api: CommerceClient, overrides: Partial<ZoneCreate> = {}): Promise<ZoneResource> {
  const { data, error, response } = await api.POST('/v1/shipping/zones', { body: buildZone(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Creates a rate in the zone through the API and returns it. */
export async function createRate(
  api: CommerceClient,
  zoneId: string,
  overrides: Partial<RateCreate> = {},
): Promise<RateResource> {
  const { data, error, response } = await api.POST('/v1/shipping/zones/{id}/rates', {
    params: { path: { id: zoneId } },
    body: buildRate(overrides),
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}
