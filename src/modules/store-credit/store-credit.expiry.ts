import type { JobDeps } from '../../shared/job-definition.js';
import { systemCtx } from '../../shared/context.js';
import { writeTx } from '../../shared/write.js';
import { expireCredit, lockAccount } from './store-credit.ledger.js';
import { recordEntryEvent } from './store-credit.service.js';

// Accounts handled per batch; each is its own short transaction, so one account's lock never holds up the rest.
const BATCH = 200;

/**
 * Removes what is left of every credit past its `expires_at`, in every project: per account, under its lock, one
 * `expiry` entry and store_credit.expired per credit (a credit spent meanwhile has nothing left and is skipped).
 * Returns the number of credits expired.
 */
export async function expireStoreCredit(deps: JobDeps): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await deps.db.storeCreditTransaction.findMany({
      where: { remaining: { gt: 0 }, expiresAt: { lte: new Date() } },
      distinct: ['customerId'],
      select: { customerId: true, projectId: true },
      take: BATCH,
    });
    for (const { customerId, projectId } of due) {
      const project = await deps.db.project.findUniqueOrThrow({ where: { id: projectId } });
      const ctx = systemCtx(deps, project, 'expire-store-credit');
      expired += await writeTx(ctx, {}, async (tx) => {
        let account = await lockAccount(tx, ctx, customerId);
        if (!account) return 0;
        const credits = await tx.storeCreditTransaction.findMany({
          where: { customerId, remaining: { gt: 0 }, expiresAt: { lte: new Date() } },
          orderBy: [{ expiresAt: 'asc' }, { id: 'asc' }],
        });
        for (const credit of credits) {
          const written = await expireCredit(tx, ctx, account, credit);
          account = written.account;
          await recordEntryEvent(tx, ctx, 'store_credit.expired', written.entry);
        }
        return credits.length;
      });
    }
    if (due.length < BATCH) return expired;
  }
}
