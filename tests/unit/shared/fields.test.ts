import { describe, expect, test } from '@jest/globals';
import { pickFields } from '../../../src/shared/fields.js';

const event = { id: 'sevt_1', type: 'product.created', summary: 'Created', created_at: '2026-11-21T09:00:00.000Z' };

describe('pickFields', () => {
  test('without fields returns the object unchanged', () => {
    expect(pickFields(event, undefined)).toBe(event);
  });
  test('keeps id and the named fields, ignoring unknown names', () => {
    expect(pickFields(event, ['type', 'bogus'])).toEqual({ id: 'sevt_1', type: 'product.created' });
  });
  test('only unknown names leave id alone', () => {
    expect(pickFields(event, ['bogus'])).toEqual({ id: 'sevt_1' });
  });
  test('does not read inherited properties', () => {
    expect(pickFields(event, ['toString', 'constructor'])).toEqual({ id: 'sevt_1' });
  });
});
