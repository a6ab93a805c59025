import { isDatabaseUnavailable } from '../db/availability.js';
import { PgBoss } from 'pg-boss';
import type { Tx } from '../db/client.js';
import type { Logger } from '../shared/logger.js';
import type { QueueDepth } from '../shared/metrics.js';
import { queueOptionsOf, type JobDefinition, type JobDeps } from '../shared/job-definition.js';
import { HEARTBEAT_SECONDS } from './heartbeat.job.js';
import { deadLetterQueue, jobs } from './registry.js';
import type { EnqueueOptions, JobName, JobPayloads, JobSender } from '../shared/job-types.js';

/** pg-boss's connection interface over a Prisma transaction: its statements run inside that transaction. */
function inTransaction(tx: Tx) {
  return {
    executeSql: async (text: string, values: unknown[] = []) => ({
      rows: await tx.$queryRawUnsafe<unknown[]>(text, ...values),
    }),
  };
}

/**
 * The process's pg-boss: every queue of the registry (with its dead-letter queue) exists once started;
 * with `work` it also runs their workers and schedules. Sending works either way.
 */
export class JobQueue implements JobSender {
  /** Queues worked by a loop of their own (JobDefinition.consumer), stopped before pg-boss. */
  private readonly consumers: Array<{ stop: () => Promise<void> }> = [];
  /** The worker heartbeat's timer, while this process works the queues. */
  private heartbeat: NodeJS.Timeout | undefined;

  private constructor(private readonly boss: PgBoss) {}

  /** Starts pg-boss in the app's database (schema `pgboss`), creating the queues; workers and schedules only with `work`. */
  static async start(
    databaseUrl: string,
    log: Logger,
    options: { work: false } | { work: true; deps: Omit<JobDeps, 'jobs'> },
  ): Promise<JobQueue> {
    const boss = new PgBoss({
      connectionString: databaseUrl,
      schema: 'pgboss',
      supervise: options.work,
      schedule: options.work,
      max: 4,
    });
    // pg-boss also emits error-like plain objects (String() says [object Object]); their message only, never their stack.
    // A lost database (an outage, or PostgreSQL stopping first on Ctrl-C) is its state, not a fault here: one
    // warning per 10 s, not an error per pg-boss connection.
    let lastUnavailable = 0;
    boss.on('error', (error) => {
      const message = (error as { message?: unknown } | undefined)?.message;
      const text = typeof message === 'string' ? message : String(error);
      if (!isDatabaseUnavailable(error)) return log.error('pg-boss error', { error: text });
      if (Date.now() - lastUnavailable < 10_000) return;
      lastUnavailable = Date.now();
      log.warn('pg-boss: the database is unavailable; jobs wait for it', { error: text });
    });
    await boss.start();
    const queue = new JobQueue(boss);
    for (const name of Object.keys(jobs) as JobName[]) {
      const { retryLimit, retryDelay, retryBackoff, expireInSeconds, deleteAfterSeconds } = queueOptionsOf(jobs[name]);
      await boss.createQueue(deadLetterQueue(name));
      await boss.createQueue(name, {
        retryLimit,
        retryDelay,
        retryBackoff,
        deadLetter: deadLetterQueue(name),
        ...(expireInSeconds && { expireInSeconds }),
        ...(deleteAfterSeconds && { deleteAfterSeconds }),
      });
    }
    if (options.work) await queue.work({ ...options.deps, jobs: queue }, databaseUrl);
    return queue;
  }

  private async work(deps: JobDeps, databaseUrl: string): Promise<void> {
    for (const name of Object.keys(jobs) as JobName[]) {
      const job = jobs[name] as JobDefinition<JobName>;
      if (job.consumer) {
        this.consumers.push(job.consumer(deps, databaseUrl));
      } else {
        await this.boss.work<Record<string, unknown>>(name, async ([queued]) => {
          await (job.handle as (deps: JobDeps, payload: unknown) => Promise<void>)(deps, queued.data);
        });
      }
      if (job.schedule) await this.boss.schedule(name, job.schedule, { v: 1 }, { tz: 'UTC' });
      await job.onWorkerStart?.(deps);
    }
    // A heartbeat job now and every HEARTBEAT_SECONDS: whichever worker runs it shows jobs run (/readyz?scope=jobs).
    const beat = () => void this.boss.send('worker-heartbeat', { v: 1 }).catch(() => {}); // an outage: the next one
    beat();
    this.heartbeat = setInterval(beat, HEARTBEAT_SECONDS * 1000).unref();
  }

  /**
   * Sends a job inside the caller's transaction: it exists if and only if that transaction commits.
   * Returns the job id.
   */
  async enqueue<N extends JobName>(
    tx: Tx,
    name: N,
    payload: JobPayloads[N],
    options: EnqueueOptions = {},
  ): Promise<string> {
    const id = await this.boss.send(name, payload as object, { ...options, db: inTransaction(tx) });
    if (!id) throw new Error(`pg-boss did not create job ${name}`);
    return id;
  }

  /**
   * Sends several jobs of one queue in one statement inside the caller's transaction: they exist if and
   * only if that transaction commits.
   */
  async enqueueMany<N extends JobName>(
    tx: Tx,
    name: N,
    sends: Array<{ payload: JobPayloads[N]; options?: EnqueueOptions }>,
  ): Promise<void> {
    if (sends.length === 0) return;
    const inserts = sends.map(({ payload, options }) => ({ ...options, data: payload }));
    await this.boss.insert(name, inserts, { db: inTransaction(tx) });
  }

  /** Sends a job outside any transaction (schedules, retries started by hand). */
  async send<N extends JobName>(
    name: N,
    payload: JobPayloads[N],
    options: EnqueueOptions = {},
  ): Promise<string | null> {
    return this.boss.send(name, payload as object, options);
  }

  /** Every queue's backlog as pg-boss counts it (for the metrics). */
  async queueDepths(): Promise<QueueDepth[]> {
    return (await this.boss.getQueues()).map((queue) => ({
      name: queue.name,
      ready: queue.readyCount,
      deferred: queue.deferredCount,
      active: queue.activeCount,
      failed: queue.failedCount,
    }));
  }

  /** The underlying pg-boss, for tests and maintenance. */
  get pgBoss(): PgBoss {
    return this.boss;
  }

  /** Stops workers and consumers (letting running jobs finish up to the timeout) and closes the pool. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await Promise.all(this.consumers.splice(0).map((consumer) => consumer.stop()));
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}
