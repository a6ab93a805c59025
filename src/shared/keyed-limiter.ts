/**
 * A bulkhead: at most `total` runs at once, at most `perKey` of them for one key (a project). A run that cannot start
 * waits, holding nothing, for the first place its key may take (first come, first served among the waiters that may
 * go), and fails with the caller's error after `waitMs`.
 */
export class KeyedLimiter {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();
  private readonly waiting: Array<{ key: string; start: () => void }> = [];

  constructor(
    readonly total: number,
    readonly perKey: number,
    private readonly waitMs: number,
  ) {}

  /** Runs `work` once a place is free for `key`; rejects with `timedOut()` when none is within the wait. */
  async run<T>(key: string, work: () => Promise<T>, timedOut: () => Error): Promise<T> {
    if (this.mayStart(key)) this.take(key);
    else await this.placeFor(key, timedOut);
    try {
      return await work();
    } finally {
      this.release(key);
    }
  }

  private mayStart(key: string): boolean {
    return this.running < this.total && (this.runningByKey.get(key) ?? 0) < this.perKey;
  }

  private take(key: string): void {
    this.running += 1;
    this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
  }

  private placeFor(key: string, timedOut: () => Error): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = {
        key,
        start: () => {
          clearTimeout(timer);
          this.take(key);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(timedOut());
      }, this.waitMs);
      this.waiting.push(waiter);
    });
  }

  private release(key: string): void {
    this.running -= 1;
    const left = this.runningByKey.get(key)! - 1;
    if (left === 0) this.runningByKey.delete(key);
    else this.runningByKey.set(key, left);
    // One place is free: the first waiter that may take it starts.
    const next = this.waiting.findIndex((waiter) => this.mayStart(waiter.key));
    if (next >= 0) this.waiting.splice(next, 1)[0].start();
  }
}
