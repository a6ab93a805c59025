import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** The strong entity tag of a representation: a hash of its canonical JSON, so key order does not matter. */
export function entityTagOf(data: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(data)).digest('base64url').slice(0, 22)}"`;
}
