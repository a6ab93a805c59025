import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/client.js';
import type { ApiKey, Project } from '../../generated/prisma/client.js';
import type { AuthCache } from './auth-cache.js';

export type KeyType = 'secret' | 'publishable';
export type KeyMode = 'test' | 'live';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN_BODY_LENGTH = 40; // ~238 bits
export const API_KEY_FORMAT = /^(sk|pk)_(test|live)_[A-Za-z0-9]{40}$/;

/** A fresh token of the given class and mode, e.g. `sk_test_` and 40 random base62 characters. */
export function generateToken(type: KeyType, mode: KeyMode): string {
  let body = '';
  while (body.length < TOKEN_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248 && body.length < TOKEN_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return `${type === 'secret' ? 'sk' : 'pk'}_${mode}_${body}`;
}

/** The stored form of a token: its SHA-256, hex. High-entropy tokens need no slow hash. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time equality of two secrets of any length. */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(hash('sha256', given, 'buffer'), hash('sha256', expected, 'buffer'));
}

/** The key a token belongs to, with its project (from the cache when it is live); null for an unknown token. */
export async function findKeyByToken(
  db: Database,
  token: string,
  cache?: AuthCache,
): Promise<(ApiKey & { project: Project }) | null> {
  const tokenHash = hashToken(token);
  const cached = cache?.get(tokenHash);
  if (cached) return cached;
  const readBegan = cache?.readBegins();
  const key = await db.apiKey.findUnique({ where: { tokenHash }, include: { project: true } });
  if (key) cache?.set(tokenHash, key, readBegan);
  return key;
}
