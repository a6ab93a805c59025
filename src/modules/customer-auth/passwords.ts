import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';

/** argon2id at the OWASP minimum: 19 MiB of memory, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

/** The argon2id hash (PHC string) of a password. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

// A hash of a random password with the same parameters, verified when there is no real hash to check.
let dummyHash: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (unknown email, customer without a password) it
 * verifies against a dummy hash of the same cost and answers false, so the time taken does not reveal
 * whether an account or a password exists.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  const matches = await argon2.verify(hash ?? (await dummyHash), password).catch(() => false);
  return hash !== null && matches;
}

/** Whether a stored hash was made with other parameters than today's (it is replaced on the next login). */
export function needsRehash(hash: string): boolean {
  return argon2.needsRehash(hash, ARGON2_OPTIONS);
}
