import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database, Tx } from '../../db/client.js';
import type { Checkout } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';

/** How a request proves it may reach a checkout: the secret createCheckout answered (X-Checkout-Secret), if sent. */
export interface CheckoutKey {
  id: string;
  secret: string | undefined;
}

const digest = (secret: string) => createHash('sha256').update(secret).digest();

/** A new client secret (`chks_` and 32 random bytes) and the SHA-256 digest kept of it (hex). */
export function newClientSecret(): { secret: string; hash: string } {
  const secret = `chks_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: digest(secret).toString('hex') };
}

/** Whether `secret` is the one whose digest is `hash`, compared in constant time (digests have one length). */
export function secretMatches(secret: string | undefined, hash: string): boolean {
  if (secret === undefined) return false;
  const expected = Buffer.from(hash, 'hex');
  const given = digest(secret);
  return expected.length === given.length && timingSafeEqual(given, expected);
}

/**
 * Whether the request may reach `checkout`: its secret, the signed-in customer it belongs to, or the merchant (a
 * secret key of the project, which reads every order and customer anyway); never a publishable key alone.
 */
const mayReach = (ctx: Ctx, checkout: Checkout, secret: string | undefined) =>
  secretMatches(secret, checkout.secretHash) ||
  (ctx.actor.kind === 'api_key' && ctx.actor.keyType === 'secret') ||
  (ctx.actor.kind === 'customer' && checkout.customerId !== null && checkout.customerId === ctx.actor.id);

/** Whether an open checkout is past its expiry (a completed one never expires before it is purged). */
export const isExpired = (checkout: Checkout, now = new Date()) =>
  checkout.status !== 'completed' && checkout.expiresAt <= now;

/**
 * The project's checkout the request may reach; 404 "Checkout not found." otherwise, alike for an unknown id, another
 * project's checkout, a missing or wrong secret and an expired checkout, so none of them can be told apart. With
 * `lock`, its row stays locked for the transaction (every write to a checkout takes this lock first).
 */
export async function findCheckout(ctx: Ctx, db: Database | Tx, key: CheckoutKey, lock = false): Promise<Checkout> {
  if (lock)
    await db.$queryRaw`SELECT id FROM checkouts WHERE id = ${key.id} AND project_id = ${ctx.project.id} FOR UPDATE`;
  const checkout = await db.checkout.findUnique({ where: { id: key.id } });
  if (!checkout || checkout.projectId !== ctx.project.id || !mayReach(ctx, checkout, key.secret) || isExpired(checkout))
    throw notFound('Checkout not found.');
  return checkout;
}

/** Whether the checkout's payment waits for another step with its units still held. */
export const awaitsAction = (checkout: Checkout, now = new Date()) =>
  checkout.status === 'requires_action' && checkout.reservedUntil !== null && checkout.reservedUntil > now;

/**
 * 400 for a completed checkout, 409 checkout_locked for a checkout paying a draft order (the merchant's lines, prices,
 * addresses and shipping), 409 while its payment waits for another step: the checkout cannot change.
 */
export function requireChangeable(checkout: Checkout): void {
  if (checkout.status === 'completed') throw new AppError('invalid_request', 'A completed checkout cannot be changed.');
  if (checkout.draftOrderId) {
    throw new AppError(
      'checkout_locked',
      'This checkout pays a draft order: its lines, prices, addresses and shipping are set by the store and cannot be changed here.',
    );
  }
  if (awaitsAction(checkout)) {
    throw new AppError(
      'conflict',
      "This checkout's payment waits for another step; complete it (POST /v1/checkouts/{id}/complete) or wait until its units are released.",
    );
  }
}
