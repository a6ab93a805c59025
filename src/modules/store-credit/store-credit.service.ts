import type { components } from '../../generated/openapi.js';
import type { StoreCreditTransaction } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { storedInstantOf } from '../../shared/instants.js';
import { listPage } from '../../shared/list-page.js';
import { writeTx } from '../../shared/write.js';
import { findCustomer } from '../customers/index.js';
import { recordEvent } from '../store-events/index.js';
import { addCredit, lockAccount, openAccount, takeCredit } from './store-credit.ledger.js';
import {
  toStoreCreditTransactionResource,
  type StoreCreditBalanceResource,
  type StoreCreditTransactionResource,
} from './store-credit.mappers.js';

type Schemas = components['schemas'];

/** Records a ledger entry's event (the entry as the API shows it is the payload) in the entry's transaction. */
export async function recordEntryEvent(
  tx: Parameters<typeof recordEvent>[0],
  ctx: Ctx,
  type: 'store_credit.issued' | 'store_credit.used' | 'store_credit.expired',
  entry: StoreCreditTransaction,
): Promise<void> {
  const amount = entry.amount < 0n ? -entry.amount : entry.amount;
  await recordEvent(tx, ctx, {
    type,
    resourceType: 'store_credit_transaction',
    resourceId: entry.id,
    summary: `Store credit ${type.slice('store_credit.'.length)}: ${amount} ${entry.currency} (${entry.type}), balance ${entry.balanceAfter}`,
    payload: toStoreCreditTransactionResource(entry),
  });
}

/** The customer's balance and the credit that expires next; 404 for a customer not of the project (or deleted). */
export async function storeCreditBalance(ctx: Ctx, customerId: string): Promise<StoreCreditBalanceResource> {
  await findCustomer(ctx, ctx.db, customerId);
  const account = await ctx.db.storeCreditAccount.findUnique({ where: { customerId } });
  const next = await ctx.db.storeCreditTransaction.findFirst({
    where: { customerId, remaining: { gt: 0 }, expiresAt: { not: null } },
    orderBy: { expiresAt: 'asc' },
    select: { expiresAt: true },
  });
  const expiring = next
    ? await ctx.db.storeCreditTransaction.aggregate({
        where: { customerId, remaining: { gt: 0 }, expiresAt: next.expiresAt },
        _sum: { remaining: true },
      })
    : null;
  return {
    customer_id: customerId,
    currency: account?.currency ?? ctx.project.currency,
    balance: Number(account?.balance ?? 0n),
    next_expiry:
      next && expiring
        ? { amount: Number(expiring._sum.remaining ?? 0n), expires_at: next.expiresAt!.toISOString() }
        : null,
  };
}

/** A page of the customer's ledger, newest first; the customer is bound into the cursor. */
export async function listStoreCredit(
  ctx: Ctx,
  customerId: string,
  page: { limit?: number; cursor?: string },
): Promise<{ data: StoreCreditTransactionResource[]; pagination: Schemas['Pagination'] }> {
  await findCustomer(ctx, ctx.db, customerId);
  return listPage(ctx, {
    model: ctx.db.storeCreditTransaction,
    where: { customerId, projectId: ctx.project.id },
    query: { ...page, customer_id: customerId, sort: 'created_at' as const, order: 'desc' as const },
    sorts: { created_at: [{ field: 'createdAt', kind: 'date' }] },
    map: toStoreCreditTransactionResource,
  });
}

/** 400 unless the account (when opened) is in the project's currency, which new credit is issued in. */
function requireProjectCurrency(ctx: Ctx, currency: string): void {
  if (currency !== ctx.project.currency) {
    throw invalidField(
      'amount',
      `The customer's store credit is in ${currency}, the project's currency is now ${ctx.project.currency}: new credit cannot be added to it.`,
    );
  }
}

/** Issues credit to the customer (an `issue` entry, store_credit.issued) in one transaction under the account lock. */
export async function issueStoreCredit(
  ctx: Ctx,
  customerId: string,
  input: Schemas['StoreCreditIssue'],
): Promise<StoreCreditTransaction> {
  const expiresAt = input.expires_at === undefined ? null : storedInstantOf(input.expires_at, 'expires_at');
  if (expiresAt && expiresAt <= new Date()) throw invalidField('expires_at', 'expires_at must be in the future.');
  return writeTx(ctx, {}, async (tx) => {
    await findCustomer(ctx, tx, customerId);
    const account = await openAccount(tx, ctx, customerId, ctx.project.currency);
    requireProjectCurrency(ctx, account.currency);
    const { entry } = await addCredit(tx, ctx, account, 'issue', BigInt(input.amount), {
      reason: input.reason,
      expiresAt,
    });
    await recordEntryEvent(tx, ctx, 'store_credit.issued', entry);
    return entry;
  });
}

/**
 * Corrects the customer's balance (an `adjustment` entry, store_credit.issued or .used) under the account lock: a positive
 * amount adds credit without expiry; a negative one takes credit, never below 0 (400 on amount, nothing written).
 */
export async function adjustStoreCredit(
  ctx: Ctx,
  customerId: string,
  input: Schemas['StoreCreditAdjust'],
): Promise<StoreCreditTransaction> {
  const amount = BigInt(input.amount);
  return writeTx(ctx, {}, async (tx) => {
    await findCustomer(ctx, tx, customerId);
    let written: StoreCreditTransaction;
    if (amount > 0n) {
      const account = await openAccount(tx, ctx, customerId, ctx.project.currency);
      requireProjectCurrency(ctx, account.currency);
      written = (await addCredit(tx, ctx, account, 'adjustment', amount, { reason: input.reason })).entry;
    } else {
      const account = await lockAccount(tx, ctx, customerId);
      const balance = account?.balance ?? 0n;
      if (!account || -amount > balance) {
        throw invalidField(
          'amount',
          `The balance is ${balance} (minor units of ${account?.currency ?? ctx.project.currency}): at most ${balance} can be taken, not ${-amount}.`,
        );
      }
      written = (await takeCredit(tx, ctx, account, 'adjustment', -amount, { reason: input.reason })).entry;
    }
    await recordEntryEvent(tx, ctx, amount > 0n ? 'store_credit.issued' : 'store_credit.used', written);
    return written;
  });
}
