import { hash } from 'node:crypto';
import { ProjectLru } from './project-lru.js';

/**
 * Signed tokens this process has already verified, with what they proved, until they expire: a repeated token
 * skips the signature check (a few hundred microseconds of HMAC and key derivation) and costs one SHA-256.
 * Entries are keyed by the SHA-256 of the scope and the token, so the map never holds a token and a lookup
 * compares digests, not secrets. Only successful verifications are kept; an entry is never served at or after
 * its expiry. Bounded (`maxEntries`, least recently used out), one project at most a quarter of it (ProjectLru), so
 * one project's sign-ins never push every other project's tokens out.
 */
export class VerifiedTokens<T> {
  // Each entry's expiry is its token's own, checked on read (lru-cache bounds the count only).
  private readonly entries: ProjectLru<{ value: T; expiresAtMs: number }>;
  /** Tokens answered from memory since the process started (for the metrics). */
  hits = 0;
  /** Tokens that had to be verified since the process started (for the metrics). */
  misses = 0;

  constructor(maxEntries: number) {
    this.entries = new ProjectLru({ maxSize: maxEntries });
  }

  /** What `verify()` proved of the project's `token` within `scope` (everything else the check depends on): remembered while unexpired, else verified now and remembered when it passes. */
  async get(
    projectId: string,
    scope: string,
    token: string,
    verify: () => Promise<{ value: T; expiresAtMs: number } | null>,
  ): Promise<T | null> {
    const key = hash('sha256', `${scope}\0${token}`, 'base64url');
    const entry = this.entries.get(projectId, key);
    if (entry && entry.expiresAtMs > Date.now()) {
      this.hits++;
      return entry.value;
    }
    if (entry) this.entries.delete(projectId, key);
    this.misses++;
    const verified = await verify();
    if (!verified) return null;
    this.entries.set(projectId, key, verified);
    return verified.value;
  }
}
