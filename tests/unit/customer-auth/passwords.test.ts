import { describe, expect, test } from '@jest/globals';
import { hashPassword, needsRehash, verifyPassword } from '../../../src/modules/customer-auth/passwords.js';

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
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
    for (let i = 0; i < 3; i++) {
      known.push(await timed(() => verifyPassword(hash, 'Wrong-Password-1')));
      unknown.push(await timed(() => verifyPassword(null, 'Wrong-Password-1')));
    }
    // Generous bounds: the point is that real argon2 work happens (milliseconds, not microseconds).
    expect(median(unknown)).toBeGreaterThan(median(known) / 3);
    expect(median(unknown)).toBeLessThan(median(known) * 3);
  });

  test('a hash made with weaker parameters needs a rehash', () => {
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG')).toBe(true);
  });
});
