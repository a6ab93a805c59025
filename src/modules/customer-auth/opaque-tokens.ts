import { createHash, randomBytes } from 'node:crypto';

/** A refresh or reset token: 256 random bits, URL-safe base64 (43 characters). */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of an opaque token: SHA-256, hex. 256-bit tokens need no slow hash. */
export function opaqueTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
