import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type DraftOrderCreate = components['schemas']['DraftOrderCreate'];
type LineItemInput = components['schemas']['DraftLineItemInput'];
export type DraftOrderResource = components['schemas']['DraftOrder'];
export type DraftLineItemResource = components['schemas']['DraftLineItem'];
export type OrderResource = components['schemas']['Order'];

/** A draft order creation body with realistic defaults. */
export function buildDraftOrder(overrides: Partial<DraftOrderCreate> = {}): DraftOrderCreate {
  return { currency: 'USD', customer_email: 'buyer@example.com', ...overrides };
}

/** Creates a draft order through the API and returns it. */
export async function createDraftOrder(
  api: CommerceClient,
  overrides: Partial<DraftOrderCreate> = {},
): Promise<DraftOrderResource> {
  const { data, error, response } = await api.POST('/v1/draft-orders', { body: buildDraftOrder(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Adds line items through the API and returns them. */
export async function addItems(
  api: CommerceClient,
  draftId: string,
  items: LineItemInput[],
): Promise<DraftLineItemResource[]> {
  const { data, error, response } = await api.POST('/v1/draft-orders/{id}/items', {
    params: { path: { id: draftId } },
    body: { items },
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Reads a draft order with its items. */
export async function readDraft(api: CommerceClient, id: string): Promise<DraftOrderResource> {
  const { data } = await api.GET('/v1/draft-orders/{id}', { params: { path: { id }, query: { expand: ['items'] } } });
  return data!.data;
}
