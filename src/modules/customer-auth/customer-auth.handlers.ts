import type { AreaHandlers } from '../../shared/contract.js';
import { tokenIssuer } from './access-token.js';
import { changePassword, getCurrentCustomer, login, register, updateCurrentCustomer } from './accounts.service.js';
import { toAuthCustomer, toAuthSession, toAuthTokens } from './customer-auth.mappers.js';
import { meHandlers } from './me.handlers.js';
import { PASSWORD_RESET, RESET_REQUESTED, requestPasswordReset, resetPassword } from './password-reset.service.js';
import { logout, refreshSession } from './sessions.service.js';

export const customerAuthHandlers = {
  registerCustomer: async ({ body, ctx, deps }) => {
    const { customer, tokens } = await register(ctx, body, tokenIssuer(deps.config).write);
    return { status: 201, body: { data: toAuthSession(tokens, customer) } };
  },
  loginCustomer: async ({ body, ctx, deps }) => {
    const { customer, tokens } = await login(ctx, body, tokenIssuer(deps.config).write);
    return { status: 200, body: { data: toAuthSession(tokens, customer) } };
  },
  refreshCustomerToken: async ({ body, ctx, deps }) => ({
    status: 200,
    body: { data: toAuthTokens(await refreshSession(ctx, body.refresh_token, tokenIssuer(deps.config).write)) },
  }),
  logoutCustomer: async ({ body, ctx }) => {
    await logout(ctx, body.refresh_token);
    return { status: 204, body: undefined };
  },
  requestPasswordReset: async ({ body, ctx, deps }) => {
    await requestPasswordReset(ctx, body.email, { smtp: Boolean(deps.config.smtpUrl) });
    return { status: 200, body: { data: { message: RESET_REQUESTED } } };
  },
  resetPassword: async ({ body, ctx }) => {
    await resetPassword(ctx, body.token, body.password);
    return { status: 200, body: { data: { message: PASSWORD_RESET } } };
  },
  getCurrentCustomer: async ({ ctx }) => ({
    status: 200,
    body: { data: toAuthCustomer(await getCurrentCustomer(ctx)) },
  }),
  updateCurrentCustomer: async ({ body, ctx }) => ({
    status: 200,
    body: { data: toAuthCustomer(await updateCurrentCustomer(ctx, body)) },
  }),
  changeCurrentCustomerPassword: async ({ body, ctx, deps }) => ({
    status: 200,
    body: { data: toAuthTokens(await changePassword(ctx, body, tokenIssuer(deps.config).write)) },
  }),
  ...meHandlers,
} satisfies AreaHandlers<'customer-auth'>;
