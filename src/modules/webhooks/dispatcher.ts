import type { Job } from 'pg-boss';
import type { JobDeps } from '../../shared/job-definition.js';
import type { JobPayloads } from '../../shared/job-types.js';
import { attemptDelivery, type AttemptOutcome, type ClaimedDelivery } from './attempt.js';
import { MicroBatcher } from './batcher.js';
import { claimDeliveries } from './deliver.js';
import { WAKE_QUEUE, WakeListener } from '../webhook-queue/index.js';
import { recordOutcomes } from './outcomes.js';

/** Attempts of one subscription running at once in a process: the outbound pool keeps 16 connections per receiver. */
export const MAX_PER_SUBSCRIPTION = 16;
// Wake-ups a process holds (running, or waiting for their subscription's turn); fetching pauses there.
const MAX_HELD = 2_000;
// Per fetch. A subscription's wake-ups beyond its 16 running wait in memory, and it is fetched for
// until 16 wait, so it holds at most 16 running and 16 plus one fetch's worth waiting.
const FETCH_BATCH = 50;
// New deliveries wake the loop through NOTIFY; polling finds retries that came due (and covers a
// listener that dropped).
const POLL_MS = 1_000;
const ERROR_PAUSE_MS = 2_000;
const WRITE_BATCH = 200;

type WakeJob = Job<JobPayloads['webhook-deliver']>;
/** A fetched wake-up; `claim` is set once its delivery is being claimed. */
interface Held {
  job: WakeJob;
  claim?: Promise<ClaimedDelivery | undefined>;
}

/**
 * The process's webhook sender, working the `webhook-deliver` queue itself rather than through a
 * pg-boss worker: a worker fetches again only when its whole batch is done, so one receiver taking its
 * 10 s would hold up every other. Here fetching never waits for an attempt:
 *
 * - at most MAX_PER_SUBSCRIPTION attempts of one subscription (the job's pg-boss group) run at once;
 *   further wake-ups wait in memory for its turn, and once as many wait as run, fetches skip its
 *   wake-ups, which stay queued in pg-boss. Up to MAX_PER_SUBSCRIPTION waiting ones are claimed ahead,
 *   so the next attempt starts the moment one ends (each within one attempt's time, well inside its
 *   lease);
 * - claims of attempts that start together, and outcomes of attempts that end together, are written in
 *   one statement or transaction each;
 * - a wake-up job is completed when its delivery is claimed (or found not due). Until then it stays
 *   active in pg-boss, which retries it if this process dies; after that the delivery's lease and the
 *   retry sweep stand for it (delivery-queue.ts).
 */
export class DeliveryDispatcher {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Held[]>();
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

  /**
   * Stops fetching; lets running attempts and those already claimed finish (10 s at most) and hands the
   * other waiting wake-ups back to pg-boss.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.poke();
    await this.loop;
    await this.listener.close();
    const unclaimed: WakeJob[] = [];
    for (const [subscription, queue] of this.waiting) {
      for (const entry of queue) {
        if (entry.claim) this.launch(subscription, entry);
        else unclaimed.push(entry.job);
      }
    }
    this.waiting.clear();
    if (unclaimed.length > 0)
      await this.boss
        .fail(
          WAKE_QUEUE,
          unclaimed.map((job) => job.id),
        )
        .catch(() => {});
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
        const full = [...this.running].filter(([id]) => !this.wantsMore(id)).map(([id]) => id);
        jobs = await this.boss.fetch(WAKE_QUEUE, {
          batchSize: Math.min(room, FETCH_BATCH),
          ignoreGroups: full.length > 0 ? full : null,
        });
      } catch (error) {
        if (!this.stopping) this.deps.log.error('fetching webhook wake-ups failed', { error: String(error) });
        await this.idle(ERROR_PAUSE_MS);
        continue;
      }
      if (jobs.length === 0) await this.idle(POLL_MS);
      for (const job of jobs) this.admit(job);
    }
  }

  /** Whether fetches should bring more of the subscription's wake-ups: it has a free slot, or fewer waiting than slots. */
  private wantsMore(subscription: string): boolean {
    return (
      (this.running.get(subscription) ?? 0) < MAX_PER_SUBSCRIPTION ||
      (this.waiting.get(subscription)?.length ?? 0) < MAX_PER_SUBSCRIPTION
    );
  }

  private admit(job: WakeJob): void {
    const subscription = job.groupId ?? '';
    this.held += 1;
    if ((this.running.get(subscription) ?? 0) < MAX_PER_SUBSCRIPTION) return this.launch(subscription, { job });
    const queue = this.waiting.get(subscription) ?? [];
    queue.push({ job });
    this.waiting.set(subscription, queue);
    this.claimAhead(queue);
  }

  /** Starts claiming the first unclaimed waiting wake-ups while fewer than MAX_PER_SUBSCRIPTION are claimed. */
  private claimAhead(queue: Held[]): void {
    let claimed = queue.filter((entry) => entry.claim !== undefined).length;
    for (const entry of queue) {
      if (claimed >= MAX_PER_SUBSCRIPTION) return;
      if (entry.claim) continue;
      entry.claim = this.claims.add(entry.job);
      entry.claim.catch(() => {}); // its attempt reports the failure
      claimed += 1;
    }
  }

  private launch(subscription: string, entry: Held): void {
    this.running.set(subscription, (this.running.get(subscription) ?? 0) + 1);
    let released = false;
    // The subscription's turn ends when the receiver is done with the request; writing the outcome
    // does not hold it up.
    const release = () => {
      if (released) return;
      released = true;
      this.released(subscription);
    };
    const attempt: Promise<void> = this.attempt(entry, release).finally(() => {
      release();
      this.attempts.delete(attempt);
      this.held -= 1;
      if (this.held === MAX_HELD - 1) this.poke(); // room to fetch again
    });
    this.attempts.add(attempt);
  }

  private async attempt({ job, claim }: Held, release: () => void): Promise<void> {
    try {
      const delivery = await (claim ?? this.claims.add(job));
      if (!delivery) return; // not due: done, not ours, or its subscription is paused or gone
      const outcome = await attemptDelivery(this.deps, delivery);
      release();
      await this.outcomes.add(outcome);
    } catch (error) {
      // The lease lapses and the retry sweep wakes the delivery again.
      this.deps.log.error('webhook delivery attempt was not recorded', {
        delivery: job.data.deliveryId,
        error: String(error),
      });
    }
  }

  private released(subscription: string): void {
    const running = this.running.get(subscription)! - 1;
    const queue = this.waiting.get(subscription);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(subscription);
    if (next) {
      this.running.set(subscription, running);
      this.launch(subscription, next);
      if (queue) this.claimAhead(queue);
      if ((queue?.length ?? 0) === MAX_PER_SUBSCRIPTION - 1) this.poke(); // fetch the next of its wake-ups in time
      return;
    }
    if (running === 0) this.running.delete(subscription);
    else this.running.set(subscription, running);
    if (running === MAX_PER_SUBSCRIPTION - 1) this.poke(); // its queued wake-ups are fetchable again
  }

  /** Claims the deliveries of a batch of wake-ups in one statement and completes the wake-up jobs beside it. */
  private async claim(jobs: WakeJob[]): Promise<Array<ClaimedDelivery | undefined>> {
    const rows = claimDeliveries(
      this.deps.db,
      jobs.map((job) => job.data.deliveryId),
    );
    // Settled whether or not the claim finds the delivery due; if the claim fails instead, the lease
    // was never taken and the retry sweep finds the delivery.
    const completing = this.boss
      .complete(
        WAKE_QUEUE,
        jobs.map((job) => job.id),
      )
      .catch((error: unknown) => {
        this.deps.log.warn('completing webhook wake-ups failed; pg-boss will retry them', { error: String(error) });
      });
    const claimed = new Map((await rows).map((d) => [d.id, d]));
    await completing;
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
