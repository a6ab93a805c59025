import { describe, expect, test } from '@jest/globals';
import { closestParameter, unknownParameters } from '../../../src/http/unknown-parameters.js';

const LIST = ['limit', 'cursor', 'sort', 'order', 'search', 'status', 'fields'];

describe('closestParameter', () => {
  test('knows the names other APIs use', () => {
    expect(closestParameter('q', LIST)).toBe('search');
    expect(closestParameter('page_size', LIST)).toBe('limit');
    expect(closestParameter('sort_by', LIST)).toBe('sort');
  });
  test('catches small typos and case, but not unrelated names', () => {
    expect(closestParameter('serach', LIST)).toBe('search');
    expect(closestParameter('Limit', LIST)).toBe('limit');
    expect(closestParameter('colour', LIST)).toBeUndefined();
  });
});

describe('unknownParameters', () => {
  test('one detail per unknown parameter, naming it, a likely meaning and what the operation takes', () => {
    expect(unknownParameters({ q: 'ada', limit: '5' }, LIST)).toEqual([
      {
        field: 'q',
        message:
          'q is not a query parameter of this operation. Did you mean search? It takes: limit, cursor, sort, order, search, status, fields.',
      },
    ]);
    expect(unknownParameters({ x: '1' }, [])).toEqual([
      { field: 'x', message: 'x is not a query parameter of this operation. It takes no query parameters.' },
    ]);
  });
});
