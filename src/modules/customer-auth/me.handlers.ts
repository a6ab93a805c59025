import type { PartialAreaHandlers } from '../../shared/contract.js';
import { toAddressResource } from '../customers/index.js';
import {
  createMyAddress,
  deleteMyAddress,
  getMyAddress,
  getMyOrder,
  getMyStoreCredit,
  listMyAddresses,
  listMyOrders,
  listMyStoreCredit,
  updateMyAddress,
} from './me.service.js';

/** The signed-in customer's orders, store credit and address book under /v1/me. */
export const meHandlers = {
  listCurrentCustomerOrders: async ({ query, ctx }) => ({ status: 200, body: await listMyOrders(ctx, query) }),
  getCurrentCustomerOrder: async ({ path, ctx }) => ({ status: 200, body: { data: await getMyOrder(ctx, path.id) } }),
  getCurrentCustomerStoreCredit: async ({ ctx }) => ({ status: 200, body: { data: await getMyStoreCredit(ctx) } }),
  listCurrentCustomerStoreCreditTransactions: async ({ query, ctx }) => ({
    status: 200,
    body: await listMyStoreCredit(ctx, query),
  }),
  listCurrentCustomerAddresses: async ({ ctx }) => ({
    status: 200,
    body: { data: (await listMyAddresses(ctx)).map(toAddressResource) },
  }),
  createCurrentCustomerAddress: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toAddressResource(await createMyAddress(ctx, body)) },
  }),
  getCurrentCustomerAddress: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toAddressResource(await getMyAddress(ctx, path.id)) },
  }),
  updateCurrentCustomerAddress: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toAddressResource(await updateMyAddress(ctx, path.id, body)) },
  }),
  deleteCurrentCustomerAddress: async ({ path, ctx }) => {
    await deleteMyAddress(ctx, path.id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'customer-auth'>;
