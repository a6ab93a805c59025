import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

// Random bytes drawn from the CSPRNG a block at a time (each byte used once): one call per 256 draws instead of
// a buffer and a call per draw, which was most of an ID's cost.
const RANDOM_PER_ID = 16;
const pool = Buffer.alloc(RANDOM_PER_ID * 256);
let used = pool.length;

// The last ID's millisecond and random part (base32 digits): the next ID in the same millisecond counts up from it.
let lastTime = -1;
const lastTail = new Uint8Array(RANDOM_PER_ID);

/** Draws a new random part into lastTail. */
function drawTail(): void {
  if (used + RANDOM_PER_ID > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  for (let i = 0; i < RANDOM_PER_ID; i++) lastTail[i] = pool[used + i] % 32;
  used += RANDOM_PER_ID;
}

/** Adds one to lastTail; false when it overflowed (every digit was the largest). */
function countUp(): boolean {
  for (let i = RANDOM_PER_ID - 1; i >= 0; i--) {
    if (lastTail[i] < 31) {
      lastTail[i] += 1;
      return true;
    }
    lastTail[i] = 0;
  }
  return false;
}

/**
 * A new identifier: the prefix and 26 base32 characters, 10 of time (ms) then 16 random, so IDs made later sort
 * later. Within this process that holds within one millisecond too: the random part of the millisecond's first ID
 * counts up by one for each next (ULID's monotonic order), so rows written in one transaction sort in the order
 * they were made. Across processes, ties within one millisecond break randomly.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    drawTail();
  } else if (!countUp()) {
    lastTime += 1;
    drawTail();
  }
  let time = lastTime;
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  let tail = '';
  for (let i = 0; i < RANDOM_PER_ID; i++) tail += ALPHABET[lastTail[i]];
  return prefix + head + tail;
}
