import { beforeAll, describe, expect, test } from '@jest/globals';
import { JobQueue } from '../../../src/jobs/queue.js';
import { queueOptionsOf } from '../../../src/shared/job-definition.js';
import { deadLetterQueue, jobs } from '../../../src/jobs/registry.js';
import type { JobName } from '../../../src/shared/job-types.js';
import { stopBeforeClosing, useApp } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';

const app = useApp();
let worker: JobQueue;
beforeAll(async () => {
  worker = await JobQueue.start(sessionUrlOf(app), app.deps.log, { work: true, deps: app.deps });
  stopBeforeClosing(app, () => worker.stop());
});

const jobCount = async (name: string) =>
  Number(
    (
      await app.deps.db.$queryRawUnsafe<Array<{ n: bigint }>>(
        `SELECT count(*) AS n FROM pgboss.job WHERE name = $1`,
        name,
      )
    )[0].n,
  );

describe('JobQueue.start', () => {
  test('creates a queue with its retry options and dead-letter queue for every job, and a UTC schedule for every job that has one', async () => {
    const boss = worker.pgBoss;
    const names = Object.keys(jobs) as JobName[];
    const queues = await boss.getQueues(names);
    expect(queues.map((q) => q.name).sort()).toEqual([...names].sort());
    for (const queue of queues) {
      const name = queue.name as JobName;
      expect(queue.retryLimit).toBe(queueOptionsOf(jobs[name]).retryLimit);
      expect(queue.deadLetter).toBe(deadLetterQueue(name));
    }
    expect((await boss.getQueues(names.map(deadLetterQueue))).length).toBe(names.length);
    const schedules = await boss.getSchedules();
    const scheduled = names.filter((name) => jobs[name].schedule !== undefined);
    expect(schedules.map((s) => [s.name, s.cron]).sort()).toEqual(
      scheduled.map((name) => [name, jobs[name].schedule]).sort(),
    );
  });

  test('a queued purge job is picked up by its worker and does its work', async () => {
    await app.deps.db.idempotencyKey.create({
      data: {
        scope: 'worker-test',
        key: 'old',
        method: 'POST',
        path: '/x',
        bodyHash: 'h',
        state: 'done',
        createdAt: new Date(Date.now() - 48 * 3600 * 1000),
      },
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

  test('enqueueMany sends several jobs in one statement of the transaction, with their ids, groups and start times, or none', async () => {
    const name = 'purge-store-events';
    const before = await jobCount(name);
    const ids = ['0b7a1a2e-3f4d-4c5b-8a6e-7f8091a2b3c4', '1c8b2b3f-4a5e-4d6c-9b7f-8091a2b3c4d5'];
    const sends = ids.map((id, i) => ({
      payload: { v: 1 as const },
      options: { id, group: { id: `group-${i}` }, startAfter: new Date(Date.now() + 3_600_000) },
    }));
    await expect(
      app.deps.db.$transaction(async (tx) => {
        await app.deps.jobs.enqueueMany(tx, name, sends);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await jobCount(name)).toBe(before);
    await app.deps.db.$transaction((tx) => app.deps.jobs.enqueueMany(tx, name, sends));
    const jobs = await app.deps.db.$queryRaw<Array<{ id: string; group_id: string; later: boolean }>>`
      SELECT id::text, group_id, start_after > now() + interval '59 minutes' AS later FROM pgboss.job WHERE id = ANY(${ids}::uuid[]) ORDER BY group_id`;
    expect(jobs).toEqual([
      { id: ids[0], group_id: 'group-0', later: true },
      { id: ids[1], group_id: 'group-1', later: true },
    ]);
  });
});
