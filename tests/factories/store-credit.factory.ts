import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { byId } from '../setup/requests.js';

export type StoreCreditTransaction = components['schemas']['StoreCreditTransaction'];

/** Issues `amount` of store credit to the customer through the API (201) and returns the ledger entry. */
export async function issueCredit(
  api: CommerceClient,
  customerId: string,
  amount: number,
  extra: { reason?: string; expires_at?: string } = {},
): Promise<StoreCreditTransaction> {
  const { data, error, response } = await api.POST('/v1/customers/{id}/store-credit/credits', {
    ...byId(customerId),
    body: { amount, reason: extra.reason ?? 'Goodwill', ...(extra.expires_at && { expires_at: extra.expires_at }) },
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** The customer's balance as getCustomerStoreCredit answers it. */
export async function balanceOf(api: CommerceClient, customerId: string): Promise<number> {
  const { data } = await api.GET('/v1/customers/{id}/store-credit', byId(customerId));
  return data!.data.balance;
}
