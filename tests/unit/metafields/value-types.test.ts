import { describe, expect, test } from '@jest/globals';
import { openapiJson } from '../../../src/generated/document.js';
import {
  BASE_TYPES,
  checkValue,
  choicesProblem,
  isValueType,
  LIST_TYPES,
  VALUE_TYPES,
  type BaseType,
  type ValueType,
} from '../../../src/modules/metafields/value-types.js';

const ID = '01jd5kx8m2n4p6q8r0s2t4v6w8';

const problemOf = (type: ValueType, value: unknown, choices: string[] | null = null) => {
  const checked = checkValue(type, value, choices);
  return checked.ok ? undefined : `${checked.problem.path} ${checked.problem.message}`.trim();
};

// For every base type: values its schema in openapi.yaml accepts, and values it does not.
const CASES: Record<BaseType, { valid: unknown[]; invalid: unknown[] }> = {
  single_line_text: {
    valid: ['Machine wash cold', 'x'.repeat(500), 'ünïcødé 🎉'],
    invalid: ['', 'two\nlines', 'carriage\rreturn', 'x'.repeat(501), 5, null, ['a']],
  },
  multi_line_text: { valid: ['Line one\nLine two', 'x'.repeat(5000)], invalid: ['', 'x'.repeat(5001), true, {}] },
  email: {
    valid: ['care@example.com', `${'a'.repeat(64)}@${'b'.repeat(185)}.com`],
    invalid: ['not-an-email', 'a@', `${'a'.repeat(64)}@${'b'.repeat(186)}.com`, 42],
  },
  integer: {
    valid: [0, -3, 42, Number.MAX_SAFE_INTEGER],
    invalid: [1.5, '5', Number.MAX_SAFE_INTEGER + 2, Number.NaN, true],
  },
  decimal: { valid: [0, 19.95, -0.5, 12, 1.1], invalid: [1.234, '19.95', 1e-7, Number.POSITIVE_INFINITY, null] },
  rating: { valid: [1, 3, 5], invalid: [0, 6, 4.5, '4'] },
  measurement: {
    valid: [
      { value: 1.2, unit: 'kg' },
      { value: 0, unit: 'fl_oz' },
      { value: 30, unit: 'mL' },
      { value: 2, unit: 'gal' },
    ],
    invalid: [
      { value: 1, unit: 'stone' },
      { value: '1', unit: 'kg' },
      { value: 1 },
      { value: 1, unit: 'kg', extra: true },
      [1, 'kg'],
      5,
      { value: 1, unit: 'KG' },
    ],
  },
  date: {
    valid: ['2026-12-01', '2028-02-29'],
    invalid: ['2026-02-30', '2026-13-01', '01.12.2026', '2026-12-01T00:00:00Z', 20261201],
  },
  datetime: {
    valid: ['2026-12-01T09:30:00Z', '2026-12-01T09:30:00.123+01:00', '2026-12-01T09:30:00-05:00'],
    invalid: ['2026-12-01T09:30:00', '2026-12-01', '2026-12-01T25:00:00Z', 'yesterday', 0],
  },
  url: {
    valid: ['https://example.com', 'http://example.com/care?lang=en#top', `https://example.com/${'a'.repeat(2020)}`],
    invalid: [
      'ftp://example.com/file',
      'example.com',
      'https://',
      'https://exa mple.com',
      `https://example.com/${'a'.repeat(2029)}`,
      'javascript:alert(1)',
      'HTTPS://EXAMPLE.COM',
    ],
  },
  boolean: { valid: [true, false], invalid: ['true', 0, null] },
  color: { valid: ['#1a2b3c', '#FFFFFF'], invalid: ['1a2b3c', '#fff', '#1a2b3g', '#1a2b3c4d'] },
  image_reference: { valid: [`img_${ID}`], invalid: [`file_${ID}`, 'img_123', `IMG_${ID}`] },
  file_reference: { valid: [`file_${ID}`], invalid: [`img_${ID}`, 'file_'] },
  video_reference: { valid: [`file_${ID}`], invalid: [`img_${ID}`, `vid_${ID}`] },
  product_reference: { valid: [`prod_${ID}`], invalid: [`var_${ID}`, 'prod_nope'] },
  variant_reference: { valid: [`var_${ID}`], invalid: [`prod_${ID}`] },
  collection_reference: { valid: [`col_${ID}`], invalid: [`cus_${ID}`] },
  customer_reference: { valid: [`cus_${ID}`], invalid: [`ord_${ID}`] },
  order_reference: { valid: [`ord_${ID}`], invalid: [`dord_${ID}`, 1001] },
};

describe('the value types', () => {
  test('are the ones the contract lists (MetafieldValueType)', () => {
    const document = JSON.parse(openapiJson) as { components: { schemas: { MetafieldValueType: { enum: string[] } } } };
    expect([...VALUE_TYPES].sort()).toEqual([...document.components.schemas.MetafieldValueType.enum].sort());
  });

  test("are the 20 base types and 16 list types of openapi.yaml's MetafieldValueType", () => {
    expect(BASE_TYPES).toHaveLength(20);
    expect(LIST_TYPES).toHaveLength(16);
    for (const notListable of ['boolean', 'multi_line_text', 'rating', 'measurement'])
      expect(isValueType(`list.${notListable}`)).toBe(false);
    expect(VALUE_TYPES.every(isValueType)).toBe(true);
    expect(isValueType('list.list.integer')).toBe(false);
  });
});

describe.each(BASE_TYPES)('checkValue %s', (type) => {
  test.each(CASES[type].valid.map((value) => [JSON.stringify(value)?.slice(0, 60), value]))(
    'accepts %s',
    (_, value) => {
      expect(problemOf(type, value)).toBeUndefined();
    },
  );
  test.each(CASES[type].invalid.map((value) => [JSON.stringify(value)?.slice(0, 60) ?? String(value), value]))(
    'refuses %s',
    (_, value) => {
      expect(problemOf(type, value)).toMatch(/^must |^unit must /);
    },
  );
});

describe.each(LIST_TYPES)('checkValue %s', (type) => {
  const base = type.slice('list.'.length) as BaseType;
  const [good] = CASES[base].valid;
  const [bad] = CASES[base].invalid;

  test('accepts a list of valid items, up to 50, and an empty list', () => {
    expect(problemOf(type, [good, good])).toBeUndefined();
    expect(
      problemOf(
        type,
        Array.from({ length: 50 }, () => good),
      ),
    ).toBeUndefined();
    expect(problemOf(type, [])).toBeUndefined();
  });

  test('refuses 51 items, a single value, and names the first invalid item', () => {
    expect(
      problemOf(
        type,
        Array.from({ length: 51 }, () => good),
      ),
    ).toBe('must have at most 50 items');
    expect(problemOf(type, good)).toMatch(/^must be a list/);
    expect(problemOf(type, [good, good, bad])).toMatch(/^\[2\] must /);
  });
});

describe('choices', () => {
  test('a single_line_text value must be one of them', () => {
    expect(problemOf('single_line_text', 'linen', ['cotton', 'linen'])).toBeUndefined();
    expect(problemOf('single_line_text', 'silk', ['cotton', 'linen'])).toBe(
      'must be one of the choices: cotton, linen',
    );
  });

  test('an integer value must be one of them, written as strings', () => {
    expect(problemOf('integer', 10, ['5', '10'])).toBeUndefined();
    expect(problemOf('integer', 7, ['5', '10'])).toBe('must be one of the choices: 5, 10');
  });

  test('list items must each be one of them', () => {
    expect(problemOf('list.single_line_text', ['cotton', 'linen'], ['cotton', 'linen', 'wool'])).toBeUndefined();
    expect(problemOf('list.single_line_text', ['cotton', 'silk'], ['cotton', 'linen', 'wool'])).toBe(
      '[1] must be one of the choices: cotton, linen, wool',
    );
    expect(problemOf('list.integer', [5, 6], ['5', '10'])).toBe('[1] must be one of the choices: 5, 10');
  });

  test('the type is checked before the choices', () => {
    expect(problemOf('integer', '5', ['5'])).toBe('must be a whole number');
  });
});

describe('references', () => {
  test('a valid reference value names what the caller must find, with its kind and position', () => {
    expect(checkValue('video_reference', `file_${ID}`, null)).toEqual({
      ok: true,
      references: [{ kind: 'video', id: `file_${ID}`, path: '' }],
    });
    expect(checkValue('list.product_reference', [`prod_${ID}`, `prod_${ID.replace('01', '02')}`], null)).toEqual({
      ok: true,
      references: [
        { kind: 'product', id: `prod_${ID}`, path: '[0]' },
        { kind: 'product', id: `prod_${ID.replace('01', '02')}`, path: '[1]' },
      ],
    });
  });

  test('values of other types hold none', () => {
    expect(checkValue('single_line_text', 'prod_01', null)).toEqual({ ok: true, references: [] });
  });
});

describe('choicesProblem', () => {
  test.each(['single_line_text', 'integer', 'list.single_line_text', 'list.integer'] as const)(
    '%s takes choices',
    (type) => {
      expect(choicesProblem(type, type.endsWith('integer') ? ['1', '-5', '10'] : ['cotton', 'linen'])).toBeUndefined();
    },
  );

  test.each(['multi_line_text', 'decimal', 'rating', 'list.email', 'boolean'] as const)('%s does not', (type) => {
    expect(choicesProblem(type, ['a'])).toBe(
      'choices are only for single_line_text, integer, list.single_line_text, list.integer definitions.',
    );
  });

  test('at most 100 choices', () => {
    expect(
      choicesProblem(
        'integer',
        Array.from({ length: 100 }, (_, i) => `${i}`),
      ),
    ).toBeUndefined();
    expect(
      choicesProblem(
        'integer',
        Array.from({ length: 101 }, (_, i) => `${i}`),
      ),
    ).toBe('choices must have at most 100 items.');
  });

  test('each choice is a valid value of the type', () => {
    expect(choicesProblem('integer', ['5', 'five'])).toBe(
      'choices[1] must be a whole number written as a string, e.g. "10".',
    );
    expect(choicesProblem('list.integer', ['007'])).toMatch(/^choices\[0\] must be a whole number/);
    expect(choicesProblem('single_line_text', ['ok', 'two\nlines'])).toBe(
      'choices[1] must be a single line (no line breaks).',
    );
    expect(choicesProblem('list.single_line_text', ['x'.repeat(501)])).toBe(
      'choices[0] must be at most 500 characters long.',
    );
  });
});
