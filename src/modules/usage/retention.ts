import type { Database } from '../../db/client.js';

/** Deletes minute windows of every kind (project, storefront, per client) older than an hour and month windows (and their usage warnings) older than a year; returns how many rows. */
export async function purgeRateWindows(db: Database): Promise<number> {
  const minutes = await db.rateWindow.deleteMany({
    where: { kind: { not: 'month' }, windowStart: { lt: new Date(Date.now() - 60 * 60 * 1000) } },
  });
  const yearAgo = new Date(Date.now() - 366 * 24 * 60 * 60 * 1000);
  const months = await db.rateWindow.deleteMany({ where: { kind: 'month', windowStart: { lt: yearAgo } } });
  const warnings = await db.usageWarning.deleteMany({ where: { createdAt: { lt: yearAgo } } });
  return minutes.count + months.count + warnings.count;
}
