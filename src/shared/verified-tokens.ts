import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Signed tokens this process has already verified, with what they proved, until they expire: a repeated token
 * skips the signature check (a few hundred microseconds of HMAC and key derivation) and costs one SHA-256.
 * Entries are keyed by the SHA-256 of the scope and the token, so the map never holds a token and a lookup
 * compares digests, not secrets. Only successful verifications are kept; an entry is never served at or after
 * its expiry. Bounded (`maxEntries`, least recently used out).
 */
export class VerifiedTokens<T> {
  // Each entry's expiry is its token's own, checked on read (lru-cache bounds the count only).
  private readonly entries: LRUCache<string, { value: T; expiresAtMs: number }>;
  /** Tokens answered from memory since the process started (for the metrics). */
  hits = 0;
  /** Tokens that had to be verified since the process started (for the metrics). */
  misses = 0;

  constructor(maxEntries: number) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** What `verify()` proved of `token` within `scope` (everything else the check depends on): remembered while unexpired, else verified now and remembered when it passes. */
  async get(
    scope: string,
    token: string,
    verify: () => Promise<{ value: T; expiresAtMs: number } | null>,
  ): Promise<T | null> {
    const key = hash('sha256', `${scope}\0${token}`, 'base64url');
    const entry = this.entries.get(key);
    if (entry && entry.expiresAtMs > Date.now()) {
      this.hits++;
      return entry.value;
    }
    if (entry) this.entries.delete(key);
    this.misses++;
    const verified = await verify();
    if (!verified) return null;
    this.entries.set(key, verified);
    return verified.value;
  }
}
