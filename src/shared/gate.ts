/**
 * At most `size` tasks run at once; the others wait their turn in arrival order. Bounds what concurrent
 * requests hold in memory together, whatever their number.
 */
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** Runs `task` once a place is free and frees it when the task settles, whether it succeeds or throws. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
