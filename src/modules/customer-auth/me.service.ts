import type { components } from '../../generated/openapi.js';
import type { CustomerAddress } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { createAddress, deleteAddress, getAddress, listAddresses, updateAddress } from '../customers/index.js';
import { getCustomerOrder, listCustomerOrders } from '../orders/index.js';
import { listStoreCredit, storeCreditBalance } from '../store-credit/index.js';
import { currentCustomer, SESSION_ENDED } from './accounts.service.js';
import { requireStoreDomain } from './store-domain.js';

type Schemas = components['schemas'];

/** The signed-in customer's id, after the checks of every /v1/me operation: a store domain (400), a live customer (401). */
async function signedIn(ctx: Ctx): Promise<{ customerId: string }> {
  requireStoreDomain(ctx);
  return { customerId: (await currentCustomer(ctx)).id };
}

// The customer was deleted between the token check and the work: the session has ended, as for GET /v1/me.
async function ended<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('unauthorized', SESSION_ENDED);
    throw error;
  }
}

/** GET /v1/me/orders: a page of the signed-in customer's orders, newest first. */
export async function listMyOrders(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  const { customerId } = await signedIn(ctx);
  return listCustomerOrders(ctx, customerId, page);
}

/** GET /v1/me/orders/{id}: one of the signed-in customer's orders; anyone else's is 404. */
export async function getMyOrder(ctx: Ctx, id: string) {
  const { customerId } = await signedIn(ctx);
  return getCustomerOrder(ctx, customerId, id);
}

/** GET /v1/me/store-credit: the signed-in customer's store credit balance. */
export async function getMyStoreCredit(ctx: Ctx) {
  const { customerId } = await signedIn(ctx);
  return ended(storeCreditBalance(ctx, customerId));
}

/** GET /v1/me/store-credit/transactions: a page of the signed-in customer's store credit ledger, newest first. */
export async function listMyStoreCredit(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  const { customerId } = await signedIn(ctx);
  return ended(listStoreCredit(ctx, customerId, page));
}

/** GET /v1/me/addresses: the customer's addresses, the default first. */
export async function listMyAddresses(ctx: Ctx): Promise<CustomerAddress[]> {
  const { customerId } = await signedIn(ctx);
  return ended(listAddresses(ctx, customerId));
}

/** POST /v1/me/addresses: the customers area's create (one default per customer) for the signed-in customer. */
export async function createMyAddress(ctx: Ctx, input: Schemas['CustomerAddressCreate']): Promise<CustomerAddress> {
  const { customerId } = await signedIn(ctx);
  return ended(createAddress(ctx, customerId, input));
}

/** GET /v1/me/addresses/{id}: one of the customer's addresses; anyone else's is 404. */
export async function getMyAddress(ctx: Ctx, id: string): Promise<CustomerAddress> {
  return getAddress(ctx, id, await signedIn(ctx));
}

/** PATCH /v1/me/addresses/{id}: the customers area's update, of the customer's own address only. */
export async function updateMyAddress(
  ctx: Ctx,
  id: string,
  input: Schemas['CustomerAddressUpdate'],
): Promise<CustomerAddress> {
  return updateAddress(ctx, id, input, await signedIn(ctx));
}

/** DELETE /v1/me/addresses/{id}: deletes one of the customer's own addresses. */
export async function deleteMyAddress(ctx: Ctx, id: string): Promise<void> {
  await deleteAddress(ctx, id, await signedIn(ctx));
}
