import { describe, expect, test } from '@jest/globals';
import { hashPassword, needsRehash, verifyPassword } from '../../../src/modules/customer-auth/passwords.js';

/**
 * The CPU time (milliseconds, every thread of the process: argon2 runs on libuv's pool) that `run` took: the work
 * done, which other processes on a loaded machine do not stretch as they stretch the wall-clock time.
 */
async function cpuTimeOf(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}

describe('passwords', () => {
  test('are hashed with argon2id at the OWASP parameters (19 MiB, 2 iterations, parallelism 1) and verify', async () => {
    const hash = await hashPassword('Winter-Trail-2026');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(needsRehash(hash)).toBe(false);
    expect(await verifyPassword(hash, 'Winter-Trail-2026')).toBe(true);
    expect(await verifyPassword(hash, 'winter-trail-2026')).toBe(false);
  });

  test('without a hash the answer is false after the same argon2 work, so timing does not tell an unknown account', async () => {
    const hash = await hashPassword('Winter-Trail-2026');
    expect(await verifyPassword(null, 'Winter-Trail-2026')).toBe(false); // also builds the dummy hash once
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await cpuTimeOf(() => verifyPassword(hash, 'Wrong-Password-1')));
      unknown.push(await cpuTimeOf(() => verifyPassword(null, 'Wrong-Password-1')));
    }
    // The least of five runs each: what else the process did meanwhile (a collection) only ever adds to a run.
    // Generous bounds: the point is that real argon2 work happens (milliseconds, not microseconds).
    const [knownWork, unknownWork] = [Math.min(...known), Math.min(...unknown)];
    expect(knownWork).toBeGreaterThan(1);
    expect(unknownWork).toBeGreaterThan(knownWork / 3);
    expect(unknownWork).toBeLessThan(knownWork * 3);
  });

  test('a hash made with weaker parameters needs a rehash', () => {
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG')).toBe(true);
  });
});
