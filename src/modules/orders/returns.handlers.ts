import type { AreaHandlers } from '../../shared/contract.js';
import { closeReturn, decideReturn, receiveReturn } from './return-moves.js';
import { toReturnResource } from './returns.mappers.js';
import { cancelReturn, createReturn, findReturn, listReturns } from './returns.service.js';

export const returnHandlers = {
  listOrderReturns: async ({ path, ctx }) => ({
    status: 200,
    body: { data: (await listReturns(ctx, path.id)).map(toReturnResource) },
  }),
  createOrderReturn: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toReturnResource(await createReturn(ctx, path.id, body, { kind: 'merchant' })) },
  }),
  getReturn: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toReturnResource(await findReturn(ctx, ctx.db, path.id)) },
  }),
  approveReturn: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: {
      data: toReturnResource(
        await decideReturn(ctx, path.id, 'approved', body ?? {}, { smtp: Boolean(deps.config.smtpUrl) }),
      ),
    },
  }),
  rejectReturn: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: {
      data: toReturnResource(
        await decideReturn(ctx, path.id, 'rejected', body ?? {}, { smtp: Boolean(deps.config.smtpUrl) }),
      ),
    },
  }),
  receiveReturn: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toReturnResource(await receiveReturn(ctx, path.id, body)) },
  }),
  closeReturn: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: {
      data: toReturnResource(await closeReturn(ctx, path.id, body ?? {}, { stripeApiBase: deps.config.stripeApiBase })),
    },
  }),
  cancelReturn: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toReturnResource(await cancelReturn(ctx, path.id)) },
  }),
} satisfies AreaHandlers<'returns'>;
