import { describe, expect, test } from '@jest/globals';
import { KeyedLimiter } from '../../../src/shared/keyed-limiter.js';

/** A run that lasts until `finish()` is called, recording when it started. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: () => (log.push(name), done), finish };
}
const timedOut = () => new Error('no place');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedLimiter', () => {
  test('at most perKey of one key and total of all run at once; a freed place goes to the first waiter that may take it', async () => {
    const limiter = new KeyedLimiter(3, 2, 10_000);
    const started: string[] = [];
    const a1 = gate(started, 'a1');
    const a2 = gate(started, 'a2');
    const a3 = gate(started, 'a3');
    const b1 = gate(started, 'b1');
    const c1 = gate(started, 'c1');
    const runs = [
      limiter.run('a', a1.work, timedOut),
      limiter.run('a', a2.work, timedOut),
      limiter.run('a', a3.work, timedOut), // a is at its two: waits
      limiter.run('b', b1.work, timedOut), // the third place
      limiter.run('c', c1.work, timedOut), // all three taken: waits behind a3
    ];
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    b1.finish(); // b's place: a3 may not take it (a is at two), c1 may
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    a1.finish(); // a's place: a3 first
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
    for (const run of [a2, a3, c1]) run.finish();
    await Promise.all(runs);
  });

  test("a waiter with no place within the wait fails with the caller's error and takes none later", async () => {
    const limiter = new KeyedLimiter(1, 1, 50);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = limiter.run('a', first.work, timedOut);
    await expect(limiter.run('b', gate(started, 'late').work, timedOut)).rejects.toThrow('no place');
    first.finish();
    await running;
    const next = gate(started, 'next');
    const after = limiter.run('a', next.work, timedOut);
    await tick();
    expect(started).toEqual(['first', 'next']);
    next.finish();
    await after;
  });

  test('a run that throws frees its place', async () => {
    const limiter = new KeyedLimiter(1, 1, 1_000);
    await expect(limiter.run('a', () => Promise.reject(new Error('boom')), timedOut)).rejects.toThrow('boom');
    await expect(limiter.run('a', async () => 'ran', timedOut)).resolves.toBe('ran');
  });
});
