import { describe, expect, it } from '@jest/globals';
import { encodeWithItemJson, withItemJson } from '../../../src/shared/item-json.js';

describe('encodeWithItemJson', () => {
  it('joins a list from its items’ JSON text and encodes the rest as JSON.stringify does', () => {
    const items = [
      { id: 'a', n: 1 },
      { id: 'b', note: 'é "quoted"' },
    ];
    const body = {
      data: withItemJson(
        items,
        items.map((item) => JSON.stringify(item)),
      ),
      pagination: { total: 2 },
      skipped: undefined,
    };
    expect(encodeWithItemJson(body)).toBe(JSON.stringify(body));
  });

  it('uses the attached texts, not a second encoding of the items', () => {
    const body = { data: withItemJson([{ id: 'a' }], ['{"id":"from text"}']) };
    expect(encodeWithItemJson(body)).toBe('{"data":[{"id":"from text"}]}');
  });

  it('leaves bodies without attached texts to the usual encoding (undefined), a changed copy of a page included', () => {
    const page = withItemJson([{ id: 'a' }], ['{"id":"a"}']);
    expect(encodeWithItemJson({ data: page.map((item) => ({ ...item, extra: 1 })) })).toBeUndefined();
    expect(encodeWithItemJson({ data: [{ id: 'a' }] })).toBeUndefined();
    expect(encodeWithItemJson([page])).toBeUndefined();
    expect(encodeWithItemJson('text')).toBeUndefined();
  });

  it('refuses texts that do not match the items one for one', () => {
    expect(() => withItemJson([{ id: 'a' }], [])).toThrow();
  });
});
