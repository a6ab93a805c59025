import { PgBoss } from 'pg-boss';
import type { AppDeps } from '../app-deps.js';
import { jobs, type JobName } from './registry.js';

/** Starts pg-boss in the app's database, creates every queue, its worker and its schedule. */
export async function startJobs(deps: AppDeps, databaseUrl: string): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss' });
  boss.on('error', (error) => deps.log.error('pg-boss error', { error: String(error) }));
  await boss.start();
  for (const name of Object.keys(jobs) as JobName[]) {
    const job = jobs[name];
    await boss.createQueue(name, job.queue);
    await boss.work<Record<string, unknown>>(name, async ([queued]) => {
      await (job.handle as (deps: AppDeps, payload: unknown) => Promise<void>)(deps, queued.data);
    });
    if (job.schedule) await boss.schedule(name, job.schedule, { v: 1 }, { tz: 'UTC' });
  }
  return boss;
}
