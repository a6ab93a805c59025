import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

// Random bytes drawn from the CSPRNG a block at a time (each byte used once): one call per 256 IDs instead of
// a buffer and a call per ID, which was most of an ID's cost.
const RANDOM_PER_ID = 16;
const pool = Buffer.alloc(RANDOM_PER_ID * 256);
let used = pool.length;

/**
 * A new identifier: the prefix and 26 base32 characters, 10 of time (ms) then 16 random, so IDs made
 * later sort later (ties within one millisecond break randomly).
 */
export function newId(prefix: string): string {
  let time = Date.now();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  if (used + RANDOM_PER_ID > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let tail = '';
  for (let i = 0; i < RANDOM_PER_ID; i++) tail += ALPHABET[pool[used + i] % 32];
  used += RANDOM_PER_ID;
  return prefix + head + tail;
}
