import type { components } from '../../generated/openapi.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { insertCustomer, updateCustomer } from '../customers/index.js';
import { countPasswordAttempt, passwordAccepted } from './lockout.service.js';
import { voidResetLinks } from './password-reset.service.js';
import { passwordProblem } from './password-rule.js';
import { hashPassword, needsRehash, verifyPassword } from './passwords.js';
import { endCustomerSessions, startSession, type TokenPair } from './sessions.service.js';
import { requireStoreDomain } from './store-domain.js';

type Schemas = components['schemas'];

const EMAIL_TAKEN = {
  email: {
    field: 'email',
    message: 'An account with this email already exists. Sign in, or reset the password to set one.',
  },
};
/** The one answer to a failed login, for a wrong email and a wrong password alike (`loginCustomer`). */
export const INVALID_LOGIN = 'Invalid email or password.';
export const ACCOUNT_INACTIVE = 'This account is inactive and cannot sign in. Contact the store.';

/**
 * Register: creates the customer with an argon2id password hash, records customer.created and starts a
 * session, in one transaction. 400 on `password` when it breaks the rule; 409 on `email` when a live
 * customer of the project has the email (merchant-created ones without a password included).
 */
export async function register(
  ctx: Ctx,
  input: Schemas['CustomerRegister'],
  issuer: string,
): Promise<{ customer: Customer; tokens: TokenPair }> {
  requireStoreDomain(ctx);
  const problem = passwordProblem(input.password);
  if (problem) throw invalidField('password', problem);
  const passwordHash = await hashPassword(input.password);
  const { password: _password, ...profile } = input;
  return writeTx(ctx, EMAIL_TAKEN, async (tx) => {
    const customer = await insertCustomer(tx, ctx, profile, passwordHash);
    return { customer, tokens: await startSession(tx, ctx, customer.id, issuer) };
  });
}

/**
 * Login (openapi.yaml, `loginCustomer`): counts the attempt (429 while the email is locked), checks the
 * password with the same argon2 work whether or not the account exists, answers 401 "Invalid email or
 * password." for any mismatch, and on success resets the count and starts a session, under the customer's row lock
 * and only while the password is still the one checked (401 as for a mismatch otherwise).
 */
export async function login(
  ctx: Ctx,
  input: Schemas['CustomerLogin'],
  issuer: string,
): Promise<{ customer: Customer; tokens: TokenPair }> {
  requireStoreDomain(ctx);
  const email = input.email.toLowerCase();
  await countPasswordAttempt(ctx.db, ctx.project.id, email);
  const customer = await ctx.db.customer.findFirst({
    where: { projectId: ctx.project.id, emailNormalized: email, deletedAt: null },
  });
  const matches = await verifyPassword(customer?.passwordHash ?? null, input.password);
  if (!customer || !matches) throw new AppError('unauthorized', INVALID_LOGIN);
  // Said only to whoever knows the password, so it reveals nothing about which emails have accounts.
  if (customer.status === 'inactive') throw new AppError('unauthorized', ACCOUNT_INACTIVE);
  await passwordAccepted(ctx.db, ctx.project.id, email);
  // Hashes made with older parameters are brought up to today's while the password is at hand.
  const passwordHash = needsRehash(customer.passwordHash!) ? await hashPassword(input.password) : undefined;
  const tokens = await writeTx(ctx, {}, async (tx) => {
    // The customer's row first, as a password change or reset takes it: one that committed since the check
    // (and ended every session) makes this login fail, instead of a session of the old password outliving it.
    await lockRows(tx, 'customers', { projectId: ctx.project.id, ids: [customer.id] });
    const current = await tx.customer.findUnique({ where: { id: customer.id } });
    if (!current || current.deletedAt) return null;
    // Another hash: a change or reset (the password no longer matches), or a concurrent login's rehash (it does).
    const unchanged = current.passwordHash === customer.passwordHash;
    if (!unchanged && !(await verifyPassword(current.passwordHash, input.password))) return null;
    if (passwordHash && unchanged) await tx.customer.update({ where: { id: customer.id }, data: { passwordHash } });
    return startSession(tx, ctx, customer.id, issuer);
  });
  if (!tokens) throw new AppError('unauthorized', INVALID_LOGIN);
  return { customer, tokens };
}

export const SESSION_ENDED = 'This session has ended. Sign in again.';

/** The signed-in customer of a customer-token request; 401 when it was deleted since the token was checked. */
export async function currentCustomer(ctx: Ctx): Promise<Customer> {
  if (ctx.actor.kind !== 'customer')
    throw new AppError('internal_error', `/v1/me needs a signed-in customer, not a ${ctx.actor.kind}.`);
  const customer = await ctx.db.customer.findUnique({ where: { id: ctx.actor.id } });
  if (!customer || customer.projectId !== ctx.project.id || customer.deletedAt)
    throw new AppError('unauthorized', SESSION_ENDED);
  return customer;
}

/** GET /v1/me: the signed-in customer. */
export async function getCurrentCustomer(ctx: Ctx): Promise<Customer> {
  requireStoreDomain(ctx);
  return currentCustomer(ctx);
}

/** PATCH /v1/me: the customers area's update (customer.updated with the customer as actor) of the customer's own profile fields. */
export async function updateCurrentCustomer(ctx: Ctx, input: Schemas['CurrentCustomerUpdate']): Promise<Customer> {
  requireStoreDomain(ctx);
  const { id } = await currentCustomer(ctx);
  try {
    return await updateCustomer(ctx, id, input);
  } catch (error) {
    // Deleted between the token check and the update.
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('unauthorized', SESSION_ENDED);
    throw error;
  }
}

/**
 * POST /v1/me/password: checks `new_password` against the rule (400 on new_password), then the current
 * password as a login attempt of the customer's email (lockout applies; 400 on current_password when
 * wrong), then sets the new hash, voids every outstanding reset link, ends every session of the customer and
 * starts a new one, in one transaction.
 */
export async function changePassword(ctx: Ctx, input: Schemas['PasswordChange'], issuer: string): Promise<TokenPair> {
  requireStoreDomain(ctx);
  const customer = await currentCustomer(ctx);
  const problem = passwordProblem(input.new_password, 'new_password');
  if (problem) throw invalidField('new_password', problem);
  await countPasswordAttempt(ctx.db, ctx.project.id, customer.emailNormalized);
  if (!(await verifyPassword(customer.passwordHash, input.current_password))) {
    throw invalidField('current_password', 'The current password is not correct.');
  }
  await passwordAccepted(ctx.db, ctx.project.id, customer.emailNormalized);
  const passwordHash = await hashPassword(input.new_password);
  return writeTx(ctx, {}, async (tx) => {
    await tx.customer.update({ where: { id: customer.id }, data: { passwordHash } });
    // After the update: the customer's row lock orders this against forgot-password, so no link outlives the change.
    await voidResetLinks(tx, customer.id);
    await endCustomerSessions(tx, customer.id, 'password_change');
    return startSession(tx, ctx, customer.id, issuer);
  });
}
