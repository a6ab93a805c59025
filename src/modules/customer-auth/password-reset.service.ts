import type { Tx } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { emailLanguage } from '../../shared/email-language.js';
import { invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { recordEmail } from '../platform/index.js';
import { passwordAccepted } from './lockout.service.js';
import { newOpaqueToken, opaqueTokenHash } from './opaque-tokens.js';
import { passwordProblem } from './password-rule.js';
import { hashPassword } from './passwords.js';
import { renderResetEmail } from './reset-email.js';
import { endCustomerSessions } from './sessions.service.js';
import { requireStoreDomain } from './store-domain.js';

/** Reset tokens live 24 hours (openapi.yaml, `requestPasswordReset`). */
export const RESET_TOKEN_TTL_HOURS = 24;

export const RESET_REQUESTED = 'If an account exists for this email, we have sent a link to reset its password.';
export const PASSWORD_RESET = 'Your password has been reset. Sign in with your new password.';
const INVALID_TOKEN = 'This password reset link is invalid, expired or already used. Request a new one.';

/** Where the storefront serves its reset page; the token rides in the query. */
export function resetUrlOf(domain: string, token: string): string {
  return `https://${domain}/account/reset-password?token=${encodeURIComponent(token)}`;
}

/**
 * One reset e-mail per account and address in this many seconds (openapi.yaml, `requestPasswordReset`): a
 * request within it sends nothing and leaves the link already sent working, so nobody can flood a mailbox.
 */
export const RESET_COOLDOWN_SECONDS = 60;

// Forgot-password answers no sooner than this after it began, whether or not the account exists: writing
// the token and the e-mail takes tens of milliseconds that an unknown email would otherwise not.
const RESET_ANSWER_FLOOR_MS = 250;

/**
 * Forgot-password: when a live customer of the project has this email and no reset e-mail went to that address
 * in the last RESET_COOLDOWN_SECONDS, voids the customer's outstanding reset links and writes a reset e-mail with a new single-use token (stored hashed, 24 hours) to the outbox
 * in the customer's language, and with `smtp` enqueues its delivery, in one transaction. Says nothing about
 * whether the account exists, and takes the same time (at least 250 ms) either way.
 */
export async function requestPasswordReset(ctx: Ctx, email: string, options: { smtp: boolean }): Promise<void> {
  const began = performance.now();
  try {
    await issueResetLink(ctx, email, options);
  } finally {
    const left = RESET_ANSWER_FLOOR_MS - (performance.now() - began);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
}

async function issueResetLink(ctx: Ctx, email: string, options: { smtp: boolean }): Promise<void> {
  requireStoreDomain(ctx);
  const customer = await ctx.db.customer.findFirst({
    where: { projectId: ctx.project.id, emailNormalized: email.toLowerCase(), deletedAt: null },
  });
  if (!customer) return;
  const token = newOpaqueToken();
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + RESET_TOKEN_TTL_HOURS * 3600 * 1000);
  await writeTx(ctx, {}, async (tx) => {
    // The customer's row lock makes concurrent requests for one account see each other's link.
    await lockRows(tx, 'customers', { projectId: ctx.project.id, ids: [customer.id] });
    const recent = await tx.passwordResetToken.findFirst({
      where: {
        customerId: customer.id,
        email: customer.emailNormalized,
        createdAt: { gt: new Date(createdAt.getTime() - RESET_COOLDOWN_SECONDS * 1000) },
      },
      select: { id: true },
    });
    if (recent) return;
    // Only the newest link works: an older one still sitting in a mailbox is void from now on.
    await tx.passwordResetToken.updateMany({
      where: { customerId: customer.id, usedAt: null },
      data: { usedAt: createdAt },
    });
    await tx.passwordResetToken.create({
      data: {
        id: newId('prt_'),
        projectId: ctx.project.id,
        customerId: customer.id,
        email: customer.emailNormalized,
        tokenHash: opaqueTokenHash(token),
        createdAt,
        expiresAt,
      },
    });
    const language = emailLanguage(customer.locale, ctx.project.locale);
    const resetUrl = resetUrlOf(ctx.project.domain!, token);
    const recorded = await recordEmail(tx, ctx.project.id, {
      to: [customer.email],
      ...renderResetEmail({
        language,
        storeName: ctx.project.name,
        firstName: customer.firstName,
        resetUrl,
        validHours: RESET_TOKEN_TTL_HOURS,
      }),
      template: 'password_reset',
      data: { customer_id: customer.id, token, reset_url: resetUrl, expires_at: expiresAt.toISOString() },
      locale: language,
    });
    if (options.smtp) await ctx.jobs.enqueue(tx, 'send-email', { v: 1, emailId: recorded.id });
  });
}

/** Uses up every outstanding reset link of the customer (a reset, a password change): none can set a password after it. */
export async function voidResetLinks(tx: Tx, customerId: string, at = new Date()): Promise<void> {
  await tx.passwordResetToken.updateMany({ where: { customerId, usedAt: null }, data: { usedAt: at } });
}

async function findUsableResetToken(ctx: Ctx, token: string): Promise<{ id: string; customer: Customer } | null> {
  const row = await ctx.db.passwordResetToken.findUnique({
    where: { tokenHash: opaqueTokenHash(token) },
    include: { customer: true },
  });
  // A link proves the address it was sent to; once the customer's email changed it proves nothing.
  const usable =
    row &&
    row.projectId === ctx.project.id &&
    !row.usedAt &&
    row.expiresAt > new Date() &&
    !row.customer.deletedAt &&
    row.customer.emailNormalized === row.email;
  return usable ? row : null;
}

/**
 * Reset-password (openapi.yaml, `resetPassword`): with a usable token, sets the password, uses up every reset
 * token of the customer, marks the email verified, lifts the login lockout and ends every session, in one
 * transaction. A used, expired or unknown token is 400 on `token`; a weak password is 400 on `password` and
 * leaves the token usable.
 */
export async function resetPassword(ctx: Ctx, token: string, password: string): Promise<void> {
  requireStoreDomain(ctx);
  const reset = await findUsableResetToken(ctx, token);
  if (!reset) throw invalidField('token', INVALID_TOKEN);
  const problem = passwordProblem(password);
  if (problem) throw invalidField('password', problem);
  const passwordHash = await hashPassword(password);
  const { customer } = reset;
  await writeTx(ctx, {}, async (tx) => {
    // The customer's row first, as a password change and forgot-password take it (then the tokens): a reset racing
    // a change waits for it instead of deadlocking. Under it the link must still name the customer's e-mail.
    await lockRows(tx, 'customers', { projectId: ctx.project.id, ids: [customer.id] });
    const current = await tx.customer.findUnique({ where: { id: customer.id } });
    if (!current || current.deletedAt || current.emailNormalized !== customer.emailNormalized)
      throw invalidField('token', INVALID_TOKEN);
    const now = new Date();
    // Conditional, so of two resets racing with one token exactly one wins.
    const used = await tx.passwordResetToken.updateMany({
      where: { id: reset.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (used.count === 0) throw invalidField('token', INVALID_TOKEN);
    await voidResetLinks(tx, customer.id, now);
    await tx.customer.update({ where: { id: customer.id }, data: { passwordHash, emailVerified: true } });
    await endCustomerSessions(tx, customer.id, 'password_reset');
  });
  await passwordAccepted(ctx.db, ctx.project.id, customer.emailNormalized);
}
