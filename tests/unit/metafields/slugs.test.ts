import { describe, expect, test } from '@jest/globals';
import { generatedSlug } from '../../../src/modules/metafields/slugs.js';

describe('generatedSlug', () => {
  test('lowercase letters and digits joined by hyphens, from the label', () => {
    expect(generatedSlug('Care guide', [], 'mf_1')).toBe('care-guide');
    expect(generatedSlug('  Größe & Passform (EU) ', [], 'mf_1')).toBe('grosse-passform-eu');
  });

  test('a taken slug gets -2, then one past the highest suffix in use', () => {
    expect(generatedSlug('Care guide', ['care-guide'], 'mf_1')).toBe('care-guide-2');
    expect(generatedSlug('Care guide', ['care-guide', 'care-guide-2', 'care-guide-7', 'care-guide-x'], 'mf_1')).toBe(
      'care-guide-8',
    );
  });

  test('at most 50 characters, with room for the suffix when taken', () => {
    const long = generatedSlug('a'.repeat(80), [], 'mf_1');
    expect(long).toBe('a'.repeat(50));
    const suffixed = generatedSlug('a'.repeat(80), [long], 'mf_1');
    expect(suffixed).toBe('a'.repeat(44));
    expect(generatedSlug('a'.repeat(80), [long, 'a'.repeat(44)], 'mf_1')).toBe(`${'a'.repeat(44)}-2`);
  });

  test('a label without letters or digits falls back to the given slug', () => {
    expect(generatedSlug('★★★', [], 'mf_12')).toBe('mf_12');
    expect(generatedSlug('★★★', ['mf_12'], 'mf_12')).toBe('mf_12-2');
  });

  test('every generated slug matches the slug pattern', () => {
    for (const label of ['Care guide', '★', 'a'.repeat(80), '--x--', '123 Go']) {
      expect(generatedSlug(label, [], 'mf_3')).toMatch(/^[a-z0-9][a-z0-9_-]{0,49}$/);
    }
  });
});
