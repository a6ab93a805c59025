import type { AppDeps } from '../app-deps.js';

/** Store events are kept this many days, by plan (openapi.yaml, `listStoreEvents`). */
export const STORE_EVENT_RETENTION_DAYS = { free: 7, pro: 90 } as const;

/** Deletes store events older than their project's plan keeps them; returns how many. */
export async function purgeStoreEvents(deps: Pick<AppDeps, 'db'>): Promise<number> {
  return deps.db.$executeRaw`
    DELETE FROM store_events e
    USING projects p
    WHERE e.project_id = p.id
      AND e.created_at < now() - make_interval(days => CASE WHEN p.plan = 'pro'
        THEN ${STORE_EVENT_RETENTION_DAYS.pro}::int ELSE ${STORE_EVENT_RETENTION_DAYS.free}::int END)`;
}

export const purgeStoreEventsJob = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '17 3 * * *', // daily, off the hour
  handle: async (deps: AppDeps) => {
    const purged = await purgeStoreEvents(deps);
    deps.log.info('purged store events past retention', { purged });
  },
};
