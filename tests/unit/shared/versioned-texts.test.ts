import { describe, expect, it } from '@jest/globals';
import { VersionedTexts } from '../../../src/shared/versioned-texts.js';

describe('VersionedTexts', () => {
  it('serves a text only for the version it was kept at', () => {
    const texts = new VersionedTexts(100);
    texts.set('merchant:p1', '7/8,9/', '{"title":"A"}');
    expect(texts.get('merchant:p1', '7/8,9/')).toBe('{"title":"A"}');
    expect(texts.get('merchant:p1', '7/8,10/')).toBeUndefined();
    expect(texts.get('storefront:p1', '7/8,9/')).toBeUndefined();
    expect([texts.hits, texts.misses]).toEqual([1, 2]);
    texts.set('merchant:p1', '7/8,10/', '{"title":"B"}');
    expect(texts.get('merchant:p1', '7/8,9/')).toBeUndefined();
    expect(texts.get('merchant:p1', '7/8,10/')).toBe('{"title":"B"}');
  });

  it('keeps at most its length of texts, the least recently used out, and no text longer than that', () => {
    const texts = new VersionedTexts(10);
    texts.set('a', '1', 'aaaa');
    texts.set('b', '1', 'bbbb');
    expect(texts.get('a', '1')).toBe('aaaa'); // now b is the least recently used
    texts.set('c', '1', 'cccc'); // 12 characters: b goes
    expect(texts.get('b', '1')).toBeUndefined();
    expect([texts.get('a', '1'), texts.get('c', '1')]).toEqual(['aaaa', 'cccc']);
    texts.set('a', '2', 'aa'); // replaced, not added: 6 characters
    texts.set('d', '1', 'dddd');
    expect([texts.get('a', '2'), texts.get('c', '1'), texts.get('d', '1')]).toEqual(['aa', 'cccc', 'dddd']);
    texts.set('e', '1', 'x'.repeat(11));
    expect(texts.get('e', '1')).toBeUndefined();
    expect(texts.get('d', '1')).toBe('dddd');
  });
});
