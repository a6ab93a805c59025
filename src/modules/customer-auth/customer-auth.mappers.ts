import type { components } from '../../generated/openapi.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { TokenPair } from './sessions.service.js';

type Schemas = components['schemas'];

/** The customer as customer auth shows it to the customer itself (never its password hash). */
export function toAuthCustomer(customer: Customer): Schemas['AuthCustomer'] {
  return {
    id: customer.id,
    email: customer.email,
    first_name: customer.firstName,
    last_name: customer.lastName,
    phone: customer.phone,
    locale: customer.locale,
    email_verified: customer.emailVerified,
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.updatedAt.toISOString(),
  };
}

/** The token response of refresh and password change. */
export function toAuthTokens(tokens: TokenPair): Schemas['AuthTokens'] {
  return { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, expires_in: 3600 };
}

/** The token response of register and login: the tokens and the customer. */
export function toAuthSession(tokens: TokenPair, customer: Customer): Schemas['AuthSession'] {
  return { ...toAuthTokens(tokens), customer: toAuthCustomer(customer) };
}
