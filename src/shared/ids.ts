import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/**
 * A new identifier: the prefix and 26 base32 characters, 10 of time (ms) then 16 random, so IDs made
 * later sort later (ties within one millisecond break randomly).
 */
export function newId(prefix: string): string {
  let time = Date.now();
  const chars = new Array<string>(26);
  for (let i = 9; i >= 0; i--) {
    chars[i] = ALPHABET[time % 32];
    time = Math.floor(time / 32);
  }
  const random = randomBytes(16);
  for (let i = 0; i < 16; i++) chars[10 + i] = ALPHABET[random[i] % 32];
  return prefix + chars.join('');
}
