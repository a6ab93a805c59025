/**
 * Hands items to `run` in batches: one batch at a time, each holding what arrived while the previous
 * one ran (at most `max`), so work that starts or ends together costs one statement, not one each.
 * `run` answers one result per item, in order; if it throws, every item of that batch rejects.
 */
export class MicroBatcher<T, R> {
  private readonly waiting: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  private draining = false;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly max: number,
  ) {}

  /** Resolves with the item's result once its batch ran. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain()); // let the rest of this turn's items join
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.max);
      try {
        const results = await this.run(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve(results[i]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.draining = false;
  }
}
