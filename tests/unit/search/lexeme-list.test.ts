import { describe, expect, test } from '@jest/globals';
import { LexemeList } from '../../../src/modules/search/index-lists.js';

describe("LexemeList (a product index build's entries)", () => {
  test('keeps lexeme numbers in 16 bits while they fit', () => {
    const list = new LexemeList(4);
    for (const value of [0, 7, 0xffff, 3, 0xffff]) list.push(value);
    const values = list.take();
    expect(values).toBeInstanceOf(Uint16Array);
    expect(Array.from(values)).toEqual([0, 7, 0xffff, 3, 0xffff]);
  });

  test('widens to 32 bits at the first number past 65,535 and keeps every value, growing after it', () => {
    const list = new LexemeList(2);
    const pushed = [5, 0xffff, 0x10000, 12, 70_000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
    for (const value of pushed) list.push(value);
    const values = list.take();
    expect(values).toBeInstanceOf(Int32Array);
    expect(Array.from(values)).toEqual(pushed);
  });
});
