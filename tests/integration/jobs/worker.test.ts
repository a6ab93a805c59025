import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { PgBoss } from 'pg-boss';
import { jobs, type JobName } from '../../../src/jobs/registry.js';
import { startJobs } from '../../../src/jobs/worker.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

let app: TestApp;
let boss: PgBoss;
beforeAll(async () => {
  app = await startTestApp();
  boss = await startJobs(app.deps, app.deps.config.databaseUrl!);
});
afterAll(async () => {
  await boss.stop({ graceful: false, timeout: 2_000 });
  await app.close();
});

describe('startJobs', () => {
  test('creates a queue with its retry options and a UTC schedule for every job', async () => {
    const names = Object.keys(jobs) as JobName[];
    const queues = await boss.getQueues(names);
    expect(queues.map((q) => q.name).sort()).toEqual([...names].sort());
    for (const queue of queues) expect(queue.retryLimit).toBe(jobs[queue.name as JobName].queue.retryLimit);
    const schedules = await boss.getSchedules();
    expect(schedules.map((s) => [s.name, s.cron]).sort()).toEqual(names.map((name) => [name, jobs[name].schedule]).sort());
  });

  test('a queued purge job is picked up by its worker and does its work', async () => {
    await app.deps.db.idempotencyKey.create({
      data: { scope: 'worker-test', key: 'old', method: 'POST', path: '/x', bodyHash: 'h', state: 'done', createdAt: new Date(Date.now() - 48 * 3600 * 1000) },
    });
    const id = await boss.send('purge-idempotency-keys', { v: 1 });
    expect(id).toBeTruthy();
    const deadline = Date.now() + 15_000;
    let state: string | undefined;
    while (Date.now() < deadline) {
      state = (await boss.findJobs('purge-idempotency-keys', { id: id! }))[0]?.state;
      if (state === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(state).toBe('completed');
    expect(await app.deps.db.idempotencyKey.count({ where: { scope: 'worker-test' } })).toBe(0);
  });
});
