import { setImmediate as nextTurn } from 'node:timers/promises';

// Work done between two looks at the clock: a look costs about 30 ns, the steps it counts a few each.
const STEPS_PER_LOOK = 1024;

/**
 * Long synchronous work cut into slices of at most `sliceMs` of the event loop: the work calls `step()` in its
 * loops and awaits `pause()` whenever `step()` answers true, so other requests run between slices.
 * (An in-process index build of a large catalog would otherwise hold the loop for seconds.)
 */
export class Slices {
  private steps = 0;
  private sliceStart = performance.now();
  /** The longest slice so far, in ms (tests, logs). */
  longestMs = 0;

  constructor(private readonly sliceMs = 20) {}

  /** Counts one step; true when the slice has used its time and the work should `await pause()`. */
  step(): boolean {
    return this.advance(1);
  }

  /** Ends the slice: yields to the event loop (timers, I/O, other requests), then starts the next one. */
  async pause(): Promise<void> {
    this.longestMs = Math.max(this.longestMs, performance.now() - this.sliceStart);
    await nextTurn();
    this.sliceStart = performance.now();
    this.steps = 0;
  }

  /** Counts `count` steps at once (a row of many entries): true when the slice has used its time. */
  advance(count: number): boolean {
    this.steps += count;
    if (this.steps < STEPS_PER_LOOK) return false;
    this.steps = 0;
    return performance.now() - this.sliceStart >= this.sliceMs;
  }
}

/**
 * `items` sorted by `compare` (a stable merge sort) in slices: runs of 4,096 sorted by the engine's sort, then
 * merged pairwise, pausing between slices; for arrays whose sort alone would hold the event loop too long.
 */
export async function sortInSlices<T>(items: T[], compare: (a: T, b: T) => number, slices: Slices): Promise<T[]> {
  const RUN = 4096;
  let runs: T[][] = [];
  for (let at = 0; at < items.length; at += RUN) {
    runs.push(items.slice(at, at + RUN).sort(compare));
    if (slices.advance(RUN * 12)) await slices.pause();
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const [a, b] = [runs[r], runs[r + 1]];
      if (!b) {
        merged.push(a);
        continue;
      }
      const out = new Array<T>(a.length + b.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < a.length && j < b.length) {
        out[k++] = compare(b[j], a[i]) < 0 ? b[j++] : a[i++];
        if (slices.step()) await slices.pause();
      }
      while (i < a.length) out[k++] = a[i++];
      while (j < b.length) out[k++] = b[j++];
      merged.push(out);
    }
    runs = merged;
  }
  return runs[0] ?? [];
}
