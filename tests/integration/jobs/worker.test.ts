import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { JobQueue } from '../../../src/jobs/queue.js';
import { deadLetterQueue, jobs, type JobName } from '../../../src/jobs/registry.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

let app: TestApp;
let worker: JobQueue;
beforeAll(async () => {
  app = await startTestApp();
  worker = await JobQueue.start(app.deps.config.databaseUrl!, app.deps.log, { work: true, deps: app.deps });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const jobCount = async (name: string) =>
  Number((await app.deps.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1`, name))[0].n);

describe('JobQueue.start', () => {
  test('creates a queue with its retry options and dead-letter queue for every job, and a UTC schedule for every scheduled one', async () => {
    const boss = worker.pgBoss;
    const names = Object.keys(jobs) as JobName[];
    const queues = await boss.getQueues(names);
    expect(queues.map((q) => q.name).sort()).toEqual([...names].sort());
    for (const queue of queues) {
      const name = queue.name as JobName;
      expect(queue.retryLimit).toBe(jobs[name].queue.retryLimit);
      expect(queue.deadLetter).toBe(deadLetterQueue(name));
    }
    expect((await boss.getQueues(names.map(deadLetterQueue))).length).toBe(names.length);
    const schedules = await boss.getSchedules();
    const scheduled = names.filter((name) => jobs[name].schedule !== undefined);
    expect(schedules.map((s) => [s.name, s.cron]).sort()).toEqual(scheduled.map((name) => [name, jobs[name].schedule]).sort());
  });

  test('a queued purge job is picked up by its worker and does its work', async () => {
    await app.deps.db.idempotencyKey.create({
      data: { scope: 'worker-test', key: 'old', method: 'POST', path: '/x', bodyHash: 'h', state: 'done', createdAt: new Date(Date.now() - 48 * 3600 * 1000) },
    });
    const id = await worker.send('purge-idempotency-keys', { v: 1 });
    expect(id).toBeTruthy();
    const deadline = Date.now() + 15_000;
    let state: string | undefined;
    while (Date.now() < deadline) {
      state = (await worker.pgBoss.findJobs('purge-idempotency-keys', { id: id! }))[0]?.state;
      if (state === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(state).toBe('completed');
    expect(await app.deps.db.idempotencyKey.count({ where: { scope: 'worker-test' } })).toBe(0);
  });
});

describe('enqueue', () => {
  test('a job sent in a transaction that rolls back does not exist; one in a committed transaction does', async () => {
    // The sending-only queue of the app, as a request handler would use it; no worker runs this queue name.
    const name = 'purge-deleted-customers';
    const before = await jobCount(name);
    await expect(
      app.deps.db.$transaction(async (tx) => {
        await app.deps.jobs.enqueue(tx, name, { v: 1 }, { startAfter: 3600 });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await jobCount(name)).toBe(before);

    const id = await app.deps.db.$transaction((tx) => app.deps.jobs.enqueue(tx, name, { v: 1 }, { startAfter: 3600 }));
    expect(await jobCount(name)).toBe(before + 1);
    const [job] = await app.deps.jobs.pgBoss.findJobs(name, { id });
    expect(job).toMatchObject({ id, name, data: { v: 1 } });
  });
});
