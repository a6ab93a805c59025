import { describe, expect, test } from '@jest/globals';
import { PackedTexts } from '../../../src/modules/search/packed-texts.js';

describe('PackedTexts', () => {
  test('reads back every text, in order, across pieces and outside ASCII', () => {
    const texts = Array.from({ length: 2_500 }, (_, i) =>
      i % 7 === 0 ? '' : i % 5 === 0 ? `Café Crème ${i} 🍰 日本` : `prod_${i.toString(36).padStart(26, '0')}`,
    );
    const packed = PackedTexts.of(texts);
    expect(packed.length).toBe(texts.length);
    expect(Array.from({ length: packed.length }, (_, i) => packed.at(i))).toEqual(texts);
    expect(PackedTexts.of([]).length).toBe(0);
  });

  test('packs as the texts come as it packs them at once', () => {
    const packing = PackedTexts.packing();
    const texts = Array.from({ length: 1_001 }, (_, i) => `t${i}`);
    for (const text of texts) packing.push(text);
    const packed = packing.done();
    expect(packed.at(0)).toBe('t0');
    expect(packed.at(999)).toBe('t999');
    expect(packed.at(1_000)).toBe('t1000');
    expect(packed.bytes).toBe(PackedTexts.of(texts).bytes);
  });
});
