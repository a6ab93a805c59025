import { invalidField } from '../../shared/errors.js';

export const MAX_METADATA_KEYS = 50;

/**
 * PATCH metadata of customer groups: the sent keys merged into the stored ones, a key sent as "" removed.
 * 400 naming metadata when the result would hold more than 50 keys.
 */
export function mergeMetadata(stored: unknown, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(stored as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  const count = Object.keys(merged).length;
  if (count > MAX_METADATA_KEYS) {
    throw invalidField(
      'metadata',
      `metadata would hold ${count} keys after merging; at most ${MAX_METADATA_KEYS} are allowed. Remove keys by sending them as "".`,
    );
  }
  return merged;
}
