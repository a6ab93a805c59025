import { describe, expect, test } from '@jest/globals';
import { mergeMetadata } from '../../../src/modules/customer-groups/metadata.js';

describe('mergeMetadata', () => {
  test('sent keys are set, others kept, a key sent as "" removed', () => {
    expect(mergeMetadata({ a: '1', b: '2', c: { x: 1 } }, { b: '', c: 3, d: 'new' })).toEqual({
      a: '1',
      c: 3,
      d: 'new',
    });
    expect(mergeMetadata({}, { gone: '' })).toEqual({});
  });

  test('the merged object may hold at most 50 keys', () => {
    const stored = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(mergeMetadata(stored, { extra: 1 }))).toHaveLength(50);
    expect(() => mergeMetadata(stored, { extra: 1, more: 2 })).toThrow(
      'metadata would hold 51 keys after merging; at most 50 are allowed.',
    );
    expect(Object.keys(mergeMetadata(stored, { k0: '', extra: 1, more: 2 }))).toHaveLength(50);
  });
});
