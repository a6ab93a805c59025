import type { Job } from 'pg-boss';
import type { JobDeps, JobPayloads } from '../../jobs/registry.js';
import { attemptDelivery, type AttemptOutcome, type ClaimedDelivery } from './attempt.js';
import { MicroBatcher } from './batcher.js';
import { claimDeliveries } from './deliver.js';
import { WAKE_QUEUE } from './delivery-queue.js';
import { recordOutcomes } from './outcomes.js';
import { WakeListener } from './wake-listener.js';

/** Attempts of one subscription running at once in a process: the outbound pool keeps 16 connections per receiver. */
export const MAX_PER_SUBSCRIPTION = 16;
// Wake-ups a process holds (running, or waiting for their subscription's turn); fetching pauses there.
const MAX_HELD = 2_000;
// Per fetch. A subscription's wake-ups beyond its 16 running wait in memory, so this also bounds what
// one subscription can hold: 16 running and at most one fetch's worth waiting.
const FETCH_BATCH = 50;
// New deliveries wake the loop through NOTIFY; polling finds retries that came due (and covers a
// listener that dropped).
const POLL_MS = 1_000;
const ERROR_PAUSE_MS = 2_000;
const WRITE_BATCH = 200;

type WakeJob = Job<JobPayloads['webhook-deliver']>;

/**
 * The process's webhook sender, working the `webhook-deliver` queue itself rather than through a
 * pg-boss worker: a worker fetches again only when its whole batch is done, so one receiver taking its
 * 10 s would hold up every other. Here fetching never waits for an attempt:
 *
 * - at most MAX_PER_SUBSCRIPTION attempts of one subscription (the job's pg-boss group) run at once;
 *   while a subscription has that many, fetches skip its wake-ups, which stay queued in pg-boss, and
 *   the ones already fetched wait in memory for its turn;
 * - claims of attempts that start together, and outcomes of attempts that end together, are written in
 *   one statement or transaction each;
 * - a wake-up job is completed when its delivery is claimed (or found not due). Until then it stays
 *   active in pg-boss, which retries it if this process dies; after that the delivery's lease and the
 *   retry sweep stand for it (delivery-queue.ts).
 */
export class DeliveryDispatcher {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, WakeJob[]>();
  private held = 0;
  private stopping = false;
  private readonly attempts = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private poked = false;
  private readonly loop: Promise<void>;
  private readonly claims: MicroBatcher<WakeJob, ClaimedDelivery | undefined>;
  private readonly outcomes: MicroBatcher<AttemptOutcome, undefined>;
  private readonly listener: WakeListener;

  constructor(
    private readonly deps: JobDeps,
    databaseUrl: string,
  ) {
    this.listener = new WakeListener(databaseUrl, deps.log, () => this.poke());
    void this.listener.start();
    this.claims = new MicroBatcher((jobs) => this.claim(jobs), WRITE_BATCH);
    this.outcomes = new MicroBatcher(async (outcomes) => {
      await recordOutcomes(deps, outcomes);
      return outcomes.map(() => undefined);
    }, WRITE_BATCH);
    this.loop = this.run();
  }

  /** Stops fetching, lets running attempts finish (10 s at most) and hands waiting wake-ups back to pg-boss. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.poke();
    await this.loop;
    await this.listener.close();
    const waiting = [...this.waiting.values()].flat();
    this.waiting.clear();
    if (waiting.length > 0) await this.boss.fail(WAKE_QUEUE, waiting.map((job) => job.id)).catch(() => {});
    await Promise.allSettled([...this.attempts]);
  }

  private get boss() {
    return this.deps.jobs.pgBoss;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const room = MAX_HELD - this.held;
      if (room <= 0) {
        await this.idle(POLL_MS);
        continue;
      }
      let jobs: WakeJob[];
      try {
        const full = [...this.running].filter(([, count]) => count >= MAX_PER_SUBSCRIPTION).map(([id]) => id);
        jobs = await this.boss.fetch(WAKE_QUEUE, { batchSize: Math.min(room, FETCH_BATCH), ignoreGroups: full.length > 0 ? full : null });
      } catch (error) {
        if (!this.stopping) this.deps.log.error('fetching webhook wake-ups failed', { error: String(error) });
        await this.idle(ERROR_PAUSE_MS);
        continue;
      }
      if (jobs.length === 0) await this.idle(POLL_MS);
      for (const job of jobs) this.admit(job);
    }
  }

  private admit(job: WakeJob): void {
    const subscription = job.groupId ?? '';
    this.held += 1;
    if ((this.running.get(subscription) ?? 0) < MAX_PER_SUBSCRIPTION) this.launch(subscription, job);
    else this.waiting.set(subscription, [...(this.waiting.get(subscription) ?? []), job]);
  }

  private launch(subscription: string, job: WakeJob): void {
    this.running.set(subscription, (this.running.get(subscription) ?? 0) + 1);
    const attempt: Promise<void> = this.attempt(job).finally(() => {
      this.attempts.delete(attempt);
      this.finished(subscription);
    });
    this.attempts.add(attempt);
  }

  private async attempt(job: WakeJob): Promise<void> {
    try {
      const delivery = await this.claims.add(job);
      if (!delivery) return; // not due: done, not ours, or its subscription is paused or gone
      await this.outcomes.add(await attemptDelivery(this.deps, delivery));
    } catch (error) {
      // The lease lapses and the retry sweep wakes the delivery again.
      this.deps.log.error('webhook delivery attempt was not recorded', { delivery: job.data.deliveryId, error: String(error) });
    }
  }

  private finished(subscription: string): void {
    this.held -= 1;
    const running = this.running.get(subscription)! - 1;
    const next = this.waiting.get(subscription)?.shift();
    if (this.waiting.get(subscription)?.length === 0) this.waiting.delete(subscription);
    if (next) {
      this.running.set(subscription, running);
      this.launch(subscription, next);
      return;
    }
    if (running === 0) this.running.delete(subscription);
    else this.running.set(subscription, running);
    // The subscription's queued wake-ups are fetchable again, or there is room again: fetch now.
    if (running === MAX_PER_SUBSCRIPTION - 1 || this.held === MAX_HELD - 1) this.poke();
  }

  /** Claims the deliveries of a batch of wake-ups in one statement, then completes the wake-up jobs. */
  private async claim(jobs: WakeJob[]): Promise<Array<ClaimedDelivery | undefined>> {
    const claimed = new Map((await claimDeliveries(this.deps.db, jobs.map((job) => job.data.deliveryId))).map((d) => [d.id, d]));
    await this.boss.complete(WAKE_QUEUE, jobs.map((job) => job.id)).catch((error: unknown) => {
      this.deps.log.warn('completing webhook wake-ups failed; pg-boss will retry them', { error: String(error) });
    });
    return jobs.map((job) => {
      const delivery = claimed.get(job.data.deliveryId);
      claimed.delete(job.data.deliveryId); // two wake-ups of one delivery: one attempt
      return delivery;
    });
  }

  private idle(ms: number): Promise<void> {
    if (this.poked || this.stopping) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private poke(): void {
    if (this.wake) this.wake();
    else this.poked = true;
  }
}
