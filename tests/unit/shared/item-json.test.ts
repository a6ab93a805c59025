import { describe, expect, it } from '@jest/globals';
import { encodeWithItemJson, itemsFromJson, withItemJson } from '../../../src/shared/item-json.js';

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

describe('itemsFromJson', () => {
  const texts = ['{"id":"a","note" : "é \\"quoted\\""}', '{"id":"b","n":[1, 2]}'];

  it('is sent as its texts joined, as they are', () => {
    expect(encodeWithItemJson({ data: itemsFromJson(texts), total: 2 })).toBe(
      `{"data":[${texts.join(',')}],"total":2}`,
    );
  });

  it('reads as the parsed texts, each parsed once; a changed copy is encoded as usual', () => {
    const items = itemsFromJson<{ id: string; note?: string; n?: number[] }>(texts);
    expect(items).toEqual([
      { id: 'a', note: 'é "quoted"' },
      { id: 'b', n: [1, 2] },
    ]);
    expect(items[0]).toBe(items[0]);
    expect(JSON.stringify(items)).toBe('[{"id":"a","note":"é \\"quoted\\""},{"id":"b","n":[1,2]}]');
    expect(encodeWithItemJson({ data: items.map((item) => ({ ...item, extra: 1 })) })).toBeUndefined();
  });

  it('sends an item changed after its page was built as its text: the response check compares the two', () => {
    const items = itemsFromJson<{ id: string }>(['{"id":"a"}']);
    items[0].id = 'changed';
    expect(encodeWithItemJson({ data: items })).toBe('{"data":[{"id":"a"}]}');
    expect(JSON.stringify({ data: items })).toBe('{"data":[{"id":"changed"}]}');
  });
});
