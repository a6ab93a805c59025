import type { AreaHandlers } from '../../shared/contract.js';
import { toStoreCreditTransactionResource } from './store-credit.mappers.js';
import { adjustStoreCredit, issueStoreCredit, listStoreCredit, storeCreditBalance } from './store-credit.service.js';

export const storeCreditHandlers = {
  getCustomerStoreCredit: async ({ path, ctx }) => ({
    status: 200,
    body: { data: await storeCreditBalance(ctx, path.id) },
  }),
  listStoreCreditTransactions: async ({ path, query, ctx }) => ({
    status: 200,
    body: await listStoreCredit(ctx, path.id, query),
  }),
  issueStoreCredit: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toStoreCreditTransactionResource(await issueStoreCredit(ctx, path.id, body)) },
  }),
  adjustStoreCredit: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toStoreCreditTransactionResource(await adjustStoreCredit(ctx, path.id, body)) },
  }),
} satisfies AreaHandlers<'store-credit'>;
