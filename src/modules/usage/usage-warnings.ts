import type { Project } from '../../generated/prisma/client.js';
import { systemCtx, type Ctx } from '../../shared/context.js';
import { writeTx } from '../../shared/write.js';
import { recordEmail } from '../platform/index.js';
import { recordEvent } from '../store-events/index.js';
import { crossedThresholds } from './windows.js';

/**
 * Records usage.warning for each threshold (80, 90, 100 % of the monthly quota) that a lease moving the
 * month's usage from `before` to `used` crossed — once per threshold and month, however many processes
 * cross it — and mails the merchant through the outbox, in one transaction.
 */
export async function recordUsageWarnings(
  deps: Pick<Ctx, 'db' | 'jobs' | 'log'>,
  project: Project,
  period: string,
  { before, used }: { before: number; used: number },
): Promise<void> {
  for (const threshold of crossedThresholds(project.monthlyQuota, before, used)) {
    const ctx = systemCtx(deps, project, 'usage');
    await writeTx(ctx, {}, async (tx) => {
      const { count } = await tx.usageWarning.createMany({
        data: [{ projectId: project.id, period, threshold }],
        skipDuplicates: true,
      });
      if (count === 0) return;
      const payload = { project_id: project.id, period, used, quota: project.monthlyQuota, threshold };
      await recordEvent(tx, ctx, {
        type: 'usage.warning',
        resourceType: 'project',
        resourceId: project.id,
        summary: `API usage reached ${threshold} % of the monthly quota (${used} of ${project.monthlyQuota} in ${period})`,
        payload,
      });
      await recordEmail(tx, project.id, {
        to: project.contactEmail ? [project.contactEmail] : [],
        subject: `${project.name}: API usage at ${threshold} % of this month's quota`,
        text:
          `Your project ${project.name} (${project.id}) has used ${used} of its ${project.monthlyQuota} API requests for ${period}.\n` +
          (threshold === 100
            ? 'Further requests this month answer 429 quota_exceeded until the quota is raised or the month ends.\n'
            : 'Requests beyond the quota answer 429 quota_exceeded until the month ends.\n'),
        template: 'usage_warning',
        data: payload,
        locale: project.locale,
      });
    });
  }
}
