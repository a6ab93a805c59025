import type { ErrorObject } from 'ajv';
import { describe, expect, test } from '@jest/globals';
import { validationError } from '../../../src/http/validation-errors.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown>): ErrorObject =>
  ({ keyword, instancePath, params, schemaPath: '#' }) as ErrorObject;

describe('validationError', () => {
  test('one field: invalid_request with field and a readable message', () => {
    const result = validationError([{ errors: [error('required', '', { missingProperty: 'email' })] }]);
    expect(result.toBody()).toEqual({
      error: { code: 'invalid_request', message: 'email is required.', field: 'email' },
    });
  });

  test('several fields: validation_error with one detail per field, first problem each', () => {
    const result = validationError([
      {
        errors: [
          error('maxLength', '/first_name', { limit: 100 }),
          error('type', '/tags/3', { type: 'string' }),
          error('pattern', '/first_name', { pattern: 'x' }),
        ],
      },
    ]);
    expect(result.toBody().error).toEqual({
      code: 'validation_error',
      message: '2 fields are invalid.',
      details: [
        { field: 'first_name', message: 'first_name must be at most 100 characters long.' },
        { field: 'tags[3]', message: 'tags[3] must be a string.' },
      ],
    });
  });

  test("an object key refused by propertyNames is the field, with the key schema's message", () => {
    const inner = {
      ...error('pattern', '', { pattern: '^[a-z0-9][a-z0-9_-]*$' }),
      propertyName: 'Not A Slug',
    } as ErrorObject;
    const result = validationError([{ errors: [inner, error('propertyNames', '', { propertyName: 'Not A Slug' })] }]);
    expect(result.toBody()).toEqual({
      error: {
        code: 'invalid_request',
        message:
          'Not A Slug must start with a lowercase letter or digit and hold only lowercase letters, digits, _ and -.',
        field: 'Not A Slug',
      },
    });
  });

  test('query parameters are named by their parameter name, list items included', () => {
    const result = validationError([{ errors: [error('maximum', '/limit', { limit: 100 })], parameters: true }]);
    expect(result.toBody().error).toMatchObject({ field: 'limit', message: 'limit must be at most 100.' });
    const expand = validationError([
      { errors: [error('enum', '/expand/1', { allowedValues: ['addresses', 'metafields'] })], parameters: true },
    ]);
    expect(expand.toBody().error).toEqual({
      code: 'invalid_request',
      message: 'expand must be one of: addresses, metafields.',
      field: 'expand',
    });
  });

  test('nullable types read naturally', () => {
    const result = validationError([{ errors: [error('type', '/phone', { type: ['string', 'null'] })] }]);
    expect(result.message).toBe('phone must be a string or null.');
  });

  test('known formats and patterns say what is expected', () => {
    expect(validationError([{ errors: [error('format', '/email', { format: 'email' })] }]).message).toBe(
      'email must be a valid email address.',
    );
    expect(validationError([{ errors: [error('pattern', '/country', { pattern: '^[A-Z]{2}$' })] }]).message).toContain(
      'ISO 3166-1',
    );
    expect(validationError([{ errors: [error('pattern', '/url', { pattern: '^https://' })] }]).message).toBe(
      'url must be an https:// URL.',
    );
  });

  test('a long list of allowed values (the event catalogue) is not spelled out; the rejected value is named instead', () => {
    const allowed = Array.from({ length: 13 }, (_, i) => `type.${i}`);
    const result = validationError([
      {
        errors: [error('enum', '/events/1', { allowedValues: allowed })],
        data: { events: ['type.0', 'order.shipped'] },
      },
    ]);
    expect(result.toBody().error).toEqual({
      code: 'invalid_request',
      field: 'events[1]',
      message:
        'events[1] must be one of the 13 values listed in the API reference; "order.shipped" is not one of them.',
    });
    // Short lists are still listed, and without the data nothing changes.
    expect(
      validationError([
        { errors: [error('enum', '/plan', { allowedValues: ['free', 'pro'] })], data: { plan: 'gold' } },
      ]).message,
    ).toBe('plan must be one of: free, pro.');
    expect(validationError([{ errors: [error('enum', '/events/0', { allowedValues: allowed })] }]).message).toContain(
      'must be one of: type.0',
    );
  });
});
