import { describe, expect, it } from '@jest/globals';
import { VersionedTexts } from '../../../src/shared/versioned-texts.js';

describe('VersionedTexts', () => {
  it('serves a text only for the version it was kept at, and only to its project', () => {
    const texts = new VersionedTexts(100);
    texts.set('p', 'merchant:p1', '7/8,9/', '{"title":"A"}');
    expect(texts.get('p', 'merchant:p1', '7/8,9/')).toBe('{"title":"A"}');
    expect(texts.get('p', 'merchant:p1', '7/8,10/')).toBeUndefined();
    expect(texts.get('p', 'storefront:p1', '7/8,9/')).toBeUndefined();
    expect(texts.get('q', 'merchant:p1', '7/8,9/')).toBeUndefined();
    expect([texts.hits, texts.misses]).toEqual([1, 3]);
    texts.set('p', 'merchant:p1', '7/8,10/', '{"title":"B"}');
    expect(texts.get('p', 'merchant:p1', '7/8,9/')).toBeUndefined();
    expect(texts.get('p', 'merchant:p1', '7/8,10/')).toBe('{"title":"B"}');
  });

  it('keeps at most its length of texts, the least recently used out, and no text longer than a project’s quarter', () => {
    const texts = new VersionedTexts(40); // a project's at most 10 characters
    texts.set('p1', 'a', '1', 'a'.repeat(10));
    texts.set('p2', 'b', '1', 'b'.repeat(10));
    texts.set('p3', 'c', '1', 'c'.repeat(10));
    texts.set('p4', 'd', '1', 'd'.repeat(10));
    expect(texts.get('p1', 'a', '1')).toBe('a'.repeat(10)); // now b is the least recently used
    texts.set('p5', 'e', '1', 'e'.repeat(10)); // 50 characters: b goes
    expect(texts.get('p2', 'b', '1')).toBeUndefined();
    expect(['p1/a', 'p3/c', 'p4/d', 'p5/e'].map((k) => texts.get(k.slice(0, 2), k.slice(3), '1')?.length)).toEqual([
      10, 10, 10, 10,
    ]);
    texts.set('p1', 'a', '2', 'aa'); // replaced, not added: 32 characters
    texts.set('p2', 'b', '1', 'b'.repeat(8));
    expect([texts.get('p1', 'a', '2'), texts.get('p2', 'b', '1'), texts.get('p3', 'c', '1')]).toEqual([
      'aa',
      'b'.repeat(8),
      'c'.repeat(10),
    ]);
    texts.set('p6', 'f', '1', 'x'.repeat(11));
    expect(texts.get('p6', 'f', '1')).toBeUndefined();
    expect(texts.get('p4', 'd', '1')).toBe('d'.repeat(10));
  });

  it("one project's texts never push another project's out: past its quarter its own least recently used go", () => {
    const texts = new VersionedTexts(40);
    texts.set('quiet', 'q', '1', 'qqqq');
    for (let n = 0; n < 8; n++) texts.set('busy', `k${n}`, '1', `k${n}xx`);
    expect(texts.get('quiet', 'q', '1')).toBe('qqqq');
    expect([0, 1, 2, 3, 4, 5].map((n) => texts.get('busy', `k${n}`, '1'))).toEqual(Array(6).fill(undefined));
    expect([texts.get('busy', 'k6', '1'), texts.get('busy', 'k7', '1')]).toEqual(['k6xx', 'k7xx']);
  });
});
