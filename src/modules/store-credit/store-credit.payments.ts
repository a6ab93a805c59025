import type { Tx } from '../../db/client.js';
import type { StoreCreditTransaction } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { addCredit, lockAccount, openAccount, reverseDebit, takeCredit } from './store-credit.ledger.js';
import { recordEntryEvent } from './store-credit.service.js';

/**
 * How much store credit a completion spends, with the customer's account locked until the transaction ends (so a
 * concurrent completion waits and then sees what this one left): `amount` exactly (400 above `total`, 409
 * insufficient_store_credit above the balance), or without it as much as the balance and `total` allow. 400 on
 * `store_credit` when the credit is in another currency.
 */
export async function creditToSpend(
  tx: Tx,
  ctx: Ctx,
  spend: { customerId: string; currency: string; total: bigint; amount: number | undefined },
): Promise<bigint> {
  const account = await lockAccount(tx, ctx, spend.customerId);
  if (account && account.currency !== spend.currency) {
    throw invalidField(
      'store_credit',
      `The customer's store credit is in ${account.currency}; this checkout is in ${spend.currency}.`,
    );
  }
  const balance = account?.balance ?? 0n;
  if (spend.amount === undefined) return balance < spend.total ? balance : spend.total;
  const amount = BigInt(spend.amount);
  if (amount > spend.total) {
    throw invalidField(
      'store_credit.amount',
      `store_credit.amount is more than the checkout's total (${spend.total}).`,
    );
  }
  if (amount > balance) {
    throw new AppError(
      'insufficient_store_credit',
      `The customer's store credit is ${balance} (minor units of ${spend.currency}), less than store_credit.amount ${amount}.`,
      { field: 'store_credit.amount' },
    );
  }
  return amount;
}

/** Spends `amount` (> 0, as creditToSpend allowed) for a checkout (a `payment` entry, store_credit.used). */
export async function spendStoreCredit(
  tx: Tx,
  ctx: Ctx,
  spend: { customerId: string; amount: bigint; checkoutId: string; orderId: string | null },
): Promise<StoreCreditTransaction> {
  const account = (await lockAccount(tx, ctx, spend.customerId))!;
  const { entry } = await takeCredit(tx, ctx, account, 'payment', spend.amount, {
    checkoutId: spend.checkoutId,
    orderId: spend.orderId,
  });
  await recordEntryEvent(tx, ctx, 'store_credit.used', entry);
  return entry;
}

/** Links a checkout's held `payment` entry to the order it paid for (its amount stays as it is). */
export function attachCreditToOrder(tx: Tx, entryId: string, orderId: string): Promise<StoreCreditTransaction> {
  return tx.storeCreditTransaction.update({ where: { id: entryId }, data: { orderId } });
}

/**
 * Gives back the credit a checkout's payment step held (its `payment` entry) to the credits it came from, with their
 * expiry (a `payment_reversed` entry, store_credit.issued).
 */
export async function reverseHeldCredit(tx: Tx, ctx: Ctx, entryId: string): Promise<void> {
  const debit = await tx.storeCreditTransaction.findUniqueOrThrow({ where: { id: entryId } });
  const account = (await lockAccount(tx, ctx, debit.customerId))!;
  const { entry } = await reverseDebit(tx, ctx, account, debit);
  await recordEntryEvent(tx, ctx, 'store_credit.issued', entry);
}

/**
 * The part of a refund's `amount` that goes back as store credit: refunds go to what the order paid with store credit
 * first (`paidWithCredit` minus what earlier refunds returned as store credit, `returnedBefore`; money they returned
 * through the provider does not count), unless the merchant asked for `original_payment` (openapi.yaml,
 * createOrderRefund).
 */
export function storeCreditRefundShare(
  paidWithCredit: bigint,
  returnedBefore: bigint,
  amount: bigint,
  method: 'store_credit' | 'original_payment' = 'store_credit',
): bigint {
  if (method === 'original_payment') return 0n;
  const left = paidWithCredit - returnedBefore;
  if (left <= 0n) return 0n;
  return amount < left ? amount : left;
}

/** Returns a refund's store credit part to the customer (a `refund` entry without expiry, store_credit.issued). */
export async function returnStoreCredit(
  tx: Tx,
  ctx: Ctx,
  credit: { customerId: string; currency: string; amount: bigint; orderId: string; refundId: string },
): Promise<StoreCreditTransaction> {
  const account = await openAccount(tx, ctx, credit.customerId, credit.currency);
  const { entry } = await addCredit(tx, ctx, account, 'refund', credit.amount, {
    orderId: credit.orderId,
    refundId: credit.refundId,
  });
  await recordEntryEvent(tx, ctx, 'store_credit.issued', entry);
  return entry;
}
