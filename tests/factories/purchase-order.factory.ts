import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type PurchaseOrderCreate = components['schemas']['PurchaseOrderCreate'];
export type PurchaseOrderResource = components['schemas']['PurchaseOrder'];

/** A purchase order creation body: the given location and lines (variant, quantity, unit cost 500). */
export function buildPurchaseOrder(
  location_id: string,
  lines: Array<[variant_id: string, quantity: number]> = [],
  overrides: Partial<PurchaseOrderCreate> = {},
): PurchaseOrderCreate {
  return {
    location_id,
    lines: lines.map(([variant_id, quantity]) => ({ variant_id, quantity, unit_cost: 500 })),
    ...overrides,
  };
}

/** Creates a draft purchase order through the API and returns it. */
export async function createPurchaseOrder(
  api: CommerceClient,
  location_id: string,
  lines: Array<[variant_id: string, quantity: number]> = [],
  overrides: Partial<PurchaseOrderCreate> = {},
): Promise<PurchaseOrderResource> {
  const { data, error, response } = await api.POST('/v1/purchase-orders', {
    body: buildPurchaseOrder(location_id, lines, overrides),
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Creates a purchase order and marks it ordered, ready to be received. */
export async function createOrderedPurchaseOrder(
  api: CommerceClient,
  location_id: string,
  lines: Array<[variant_id: string, quantity: number]>,
  overrides: Partial<PurchaseOrderCreate> = {},
): Promise<PurchaseOrderResource> {
  const draft = await createPurchaseOrder(api, location_id, lines, overrides);
  const { data, response } = await api.POST('/v1/purchase-orders/{id}/order', { params: { path: { id: draft.id } } });
  expect(response.status).toBe(200);
  return data!.data;
}
