import type { Tx } from '../../db/client.js';
import type { StoreCreditAccount, StoreCreditTransaction } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { lockAccountRow } from './store-credit.sql.js';

/** The kinds of ledger entries (openapi.yaml, StoreCreditTransaction). */
export type EntryType = 'issue' | 'adjustment' | 'payment' | 'payment_reversed' | 'refund' | 'expiry';
/** What a debit took from each credit entry, so a reversal can give it back to the same entries. */
type Taken = Array<{ id: string; amount: number }>;
/** The links and texts an entry may carry. */
export interface EntryDetails {
  reason?: string | null;
  expiresAt?: Date | null;
  orderId?: string | null;
  checkoutId?: string | null;
  refundId?: string | null;
}

/**
 * The customer's account, its row locked until the transaction ends (every ledger write takes this lock first, so
 * writers of one customer queue and none sees a stale balance); null when the customer never had credit.
 */
export async function lockAccount(tx: Tx, ctx: Ctx, customerId: string): Promise<StoreCreditAccount | null> {
  if (!(await lockAccountRow(tx, ctx.project.id, customerId))) return null;
  return tx.storeCreditAccount.findUniqueOrThrow({ where: { customerId } });
}

/** The customer's account locked as lockAccount does, opened in `currency` with balance 0 when missing. */
export async function openAccount(tx: Tx, ctx: Ctx, customerId: string, currency: string): Promise<StoreCreditAccount> {
  // Concurrent first credits: one insert wins, the others skip it and wait on its row lock below.
  await tx.storeCreditAccount.createMany({
    data: [{ customerId, projectId: ctx.project.id, currency, balance: 0n }],
    skipDuplicates: true,
  });
  return (await lockAccount(tx, ctx, customerId))!;
}

/** Writes one entry and the account's new balance (the account must be locked by this transaction). */
async function append(
  tx: Tx,
  ctx: Ctx,
  account: StoreCreditAccount,
  entry: { type: EntryType; amount: bigint; remaining: bigint; taken: Taken | null } & EntryDetails,
): Promise<{ entry: StoreCreditTransaction; account: StoreCreditAccount }> {
  const balance = account.balance + entry.amount;
  const row = await tx.storeCreditTransaction.create({
    data: {
      id: newId('sctx_'),
      projectId: ctx.project.id,
      customerId: account.customerId,
      type: entry.type,
      amount: entry.amount,
      balanceAfter: balance,
      currency: account.currency,
      reason: entry.reason ?? null,
      expiresAt: entry.expiresAt ?? null,
      remaining: entry.remaining,
      taken: entry.taken ?? undefined,
      orderId: entry.orderId ?? null,
      checkoutId: entry.checkoutId ?? null,
      refundId: entry.refundId ?? null,
    },
  });
  const updated = await tx.storeCreditAccount.update({
    where: { customerId: account.customerId },
    data: { balance },
  });
  return { entry: row, account: updated };
}

/** Adds credit (`amount` > 0) that can be spent until `expiresAt` (never when null). */
export function addCredit(
  tx: Tx,
  ctx: Ctx,
  account: StoreCreditAccount,
  type: 'issue' | 'adjustment' | 'refund',
  amount: bigint,
  details: EntryDetails,
) {
  return append(tx, ctx, account, { ...details, type, amount, remaining: amount, taken: null });
}

/**
 * Takes `amount` (> 0, at most the balance: callers check and answer first) from the credit entries that expire
 * soonest (credit without expiry last, then oldest first), as one entry of `type`.
 */
export async function takeCredit(
  tx: Tx,
  ctx: Ctx,
  account: StoreCreditAccount,
  type: 'adjustment' | 'payment',
  amount: bigint,
  details: EntryDetails,
) {
  const credits = await tx.storeCreditTransaction.findMany({
    where: { customerId: account.customerId, remaining: { gt: 0 } },
    orderBy: [{ expiresAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  const taken: Taken = [];
  let left = amount;
  for (const credit of credits) {
    if (left === 0n) break;
    const part = credit.remaining < left ? credit.remaining : left;
    await tx.storeCreditTransaction.update({ where: { id: credit.id }, data: { remaining: credit.remaining - part } });
    taken.push({ id: credit.id, amount: Number(part) });
    left -= part;
  }
  // The balance is the sum of what is left of the credits; a difference is a broken ledger, never a user error.
  if (left !== 0n) throw new Error(`store credit ledger of ${account.customerId}: balance exceeds its credits`);
  return append(tx, ctx, account, { ...details, type, amount: -amount, remaining: 0n, taken });
}

/** Gives a debit's credit back to the entries it was taken from (with their expiry), as one `payment_reversed` entry. */
export async function reverseDebit(tx: Tx, ctx: Ctx, account: StoreCreditAccount, debit: StoreCreditTransaction) {
  const taken = (debit.taken ?? []) as Taken;
  for (const part of taken) {
    await tx.storeCreditTransaction.update({ where: { id: part.id }, data: { remaining: { increment: part.amount } } });
  }
  return append(tx, ctx, account, {
    type: 'payment_reversed',
    amount: -debit.amount,
    remaining: 0n,
    taken,
    checkoutId: debit.checkoutId,
  });
}

/** Removes what is left of an expired credit entry, as one `expiry` entry. */
export async function expireCredit(tx: Tx, ctx: Ctx, account: StoreCreditAccount, credit: StoreCreditTransaction) {
  await tx.storeCreditTransaction.update({ where: { id: credit.id }, data: { remaining: 0n } });
  return append(tx, ctx, account, {
    type: 'expiry',
    amount: -credit.remaining,
    remaining: 0n,
    taken: [{ id: credit.id, amount: Number(credit.remaining) }],
    expiresAt: null,
  });
}
