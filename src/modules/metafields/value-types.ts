import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { components } from '../../generated/openapi.js';

/**
 * The metafield value types and their validation (openapi.yaml, `MetafieldValueType` and the value schemas of
 * `MetafieldValueObject`). Pure: what needs the database (do references exist?) is returned as `references` for
 * the caller to check.
 */

export const BASE_TYPES = [
  'single_line_text',
  'multi_line_text',
  'email',
  'integer',
  'decimal',
  'rating',
  'measurement',
  'date',
  'datetime',
  'url',
  'boolean',
  'color',
  'image_reference',
  'file_reference',
  'video_reference',
  'product_reference',
  'variant_reference',
  'collection_reference',
  'customer_reference',
  'order_reference',
] as const;
export type BaseType = (typeof BASE_TYPES)[number];

/** A value type as the contract lists them (`MetafieldValueType`); a unit test keeps the two lists equal. */
export type ValueType = components['schemas']['MetafieldValueType'];

const NOT_LISTABLE: readonly BaseType[] = ['boolean', 'multi_line_text', 'rating', 'measurement'];
export const LIST_TYPES = BASE_TYPES.filter((type) => !NOT_LISTABLE.includes(type)).map(
  (type) => `list.${type}` as ValueType,
);
export const VALUE_TYPES: readonly ValueType[] = [...BASE_TYPES, ...LIST_TYPES];

/** The types whose definitions may have choices. */
export const CHOICE_TYPES: readonly ValueType[] = [
  'single_line_text',
  'integer',
  'list.single_line_text',
  'list.integer',
];

export const MAX_LIST_ITEMS = 50;
export const MAX_CHOICES = 100;
const MAX_SINGLE_LINE = 500;
const MAX_MULTI_LINE = 5000;
const MAX_EMAIL = 254;
// The length the API allows for every other URL too (webhooks, images).
const MAX_URL = 2048;

export const MEASUREMENT_UNITS = [
  'kg',
  'g',
  'lb',
  'oz',
  'm',
  'cm',
  'mm',
  'in',
  'ft',
  'L',
  'mL',
  'fl_oz',
  'gal',
] as const;

/** What a reference value must name: a resource of the project, or a registered file of a kind. */
export type ReferenceKind = 'product' | 'variant' | 'collection' | 'customer' | 'order' | 'image' | 'file' | 'video';

const REFERENCES: Partial<Record<BaseType, { kind: ReferenceKind; prefix: string; noun: string }>> = {
  image_reference: { kind: 'image', prefix: 'img_', noun: 'an image ID (img_...)' },
  file_reference: { kind: 'file', prefix: 'file_', noun: 'a file ID (file_...)' },
  video_reference: { kind: 'video', prefix: 'file_', noun: 'a video file ID (file_...)' },
  product_reference: { kind: 'product', prefix: 'prod_', noun: 'a product ID (prod_...)' },
  variant_reference: { kind: 'variant', prefix: 'var_', noun: 'a variant ID (var_...)' },
  collection_reference: { kind: 'collection', prefix: 'col_', noun: 'a collection ID (col_...)' },
  customer_reference: { kind: 'customer', prefix: 'cus_', noun: 'a customer ID (cus_...)' },
  order_reference: { kind: 'order', prefix: 'ord_', noun: 'an order ID (ord_...)' },
};

/** A reference found in a value: `path` is '' for a single value, `[i]` for a list item. */
export interface Reference {
  kind: ReferenceKind;
  id: string;
  path: string;
}

/** A problem with a value: `message` follows the field name and the path ("[2] must be ..."). */
export interface Problem {
  path: string;
  message: string;
}

export type Checked = { ok: true; references: Reference[] } | { ok: false; problem: Problem };

/** Whether `type` is one of the value types. */
export const isValueType = (type: string): type is ValueType => (VALUE_TYPES as readonly string[]).includes(type);

// The same format checks as the contract's `format: date`, `date-time`, `uri` and `email`, so every stored
// value also passes the response schemas.
const formats = fullFormats as unknown as {
  date: { validate: (text: string) => boolean };
  'date-time': { validate: (text: string) => boolean };
  uri: (text: string) => boolean;
  email: RegExp;
};
const length = (text: string) => [...text].length;

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//.test(text) || !formats.uri(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

/** Why `value` is not a valid value of the base type (ignoring choices and whether references exist), or undefined. */
function baseProblem(type: BaseType, value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : undefined;
  switch (type) {
    case 'single_line_text':
      if (text === undefined || text === '') return 'must be a non-empty string';
      if (/[\r\n]/.test(text)) return 'must be a single line (no line breaks)';
      return length(text) > MAX_SINGLE_LINE ? `must be at most ${MAX_SINGLE_LINE} characters long` : undefined;
    case 'multi_line_text':
      if (text === undefined || text === '') return 'must be a non-empty string';
      return length(text) > MAX_MULTI_LINE ? `must be at most ${MAX_MULTI_LINE} characters long` : undefined;
    case 'email':
      if (text === undefined || !formats.email.test(text)) return 'must be a valid email address';
      return length(text) > MAX_EMAIL ? `must be at most ${MAX_EMAIL} characters long` : undefined;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'must be a whole number';
    case 'decimal':
      return typeof value === 'number' && /^-?\d+(\.\d{1,2})?$/.test(String(value))
        ? undefined
        : 'must be a number with at most 2 decimal places';
    case 'rating':
      return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 5
        ? undefined
        : 'must be a whole number from 1 to 5';
    case 'measurement':
      return measurementProblem(value);
    case 'date':
      return text !== undefined && formats.date.validate(text) ? undefined : 'must be a date in the form YYYY-MM-DD';
    case 'datetime':
      return text !== undefined && formats['date-time'].validate(text)
        ? undefined
        : 'must be an ISO 8601 date-time with seconds and a time zone, e.g. 2026-11-21T09:30:00Z';
    case 'url':
      if (text === undefined || !isHttpUrl(text)) return 'must be a valid http or https URL';
      return length(text) > MAX_URL ? `must be at most ${MAX_URL} characters long` : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'color':
      return text !== undefined && /^#[0-9A-Fa-f]{6}$/.test(text)
        ? undefined
        : 'must be a 6-digit hex color with a # prefix, e.g. #1a2b3c';
    default: {
      const reference = REFERENCES[type]!;
      const pattern = new RegExp(`^${reference.prefix}[0-9a-z]{26}$`);
      return text !== undefined && pattern.test(text) ? undefined : `must be ${reference.noun}`;
    }
  }
}

function measurementProblem(value: unknown): string | undefined {
  const expected = `must be an object {value, unit} with a number value and a unit of ${MEASUREMENT_UNITS.join(', ')}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected;
  const keys = Object.keys(value).sort();
  const { value: amount, unit } = value as Record<string, unknown>;
  if (keys.join() !== 'unit,value' || typeof amount !== 'number' || !Number.isFinite(amount)) return expected;
  return (MEASUREMENT_UNITS as readonly unknown[]).includes(unit)
    ? undefined
    : `unit must be one of ${MEASUREMENT_UNITS.join(', ')}`;
}

/** One item (or a single value) checked against the base type, then the choices. */
function checkItem(type: BaseType, value: unknown, choices: readonly string[] | null, path: string): Checked {
  const problem = baseProblem(type, value);
  if (problem) return { ok: false, problem: { path, message: problem } };
  if (choices && !choices.includes(String(value))) {
    return { ok: false, problem: { path, message: `must be one of the choices: ${choices.join(', ')}` } };
  }
  const reference = REFERENCES[type];
  return { ok: true, references: reference ? [{ kind: reference.kind, id: value as string, path }] : [] };
}

/**
 * Whether `value` is a valid value of `type` with the definition's `choices` (null: none): list types take
 * a JSON array of at most 50 items, each checked on its own. The first problem found is reported; a valid
 * value comes with the references it holds, which the caller must find in the project.
 */
export function checkValue(type: ValueType, value: unknown, choices: readonly string[] | null): Checked {
  if (!type.startsWith('list.')) return checkItem(type as BaseType, value, choices, '');
  if (!Array.isArray(value))
    return {
      ok: false,
      problem: { path: '', message: `must be a list (JSON array) of at most ${MAX_LIST_ITEMS} items` },
    };
  if (value.length > MAX_LIST_ITEMS)
    return { ok: false, problem: { path: '', message: `must have at most ${MAX_LIST_ITEMS} items` } };
  const references: Reference[] = [];
  for (const [index, item] of value.entries()) {
    const checked = checkItem(type.slice('list.'.length) as BaseType, item, choices, `[${index}]`);
    if (!checked.ok) return checked;
    references.push(...checked.references);
  }
  return { ok: true, references };
}

/** Why `choices` cannot be a definition's choices for `type`, or undefined when they can. */
export function choicesProblem(type: ValueType, choices: readonly string[]): string | undefined {
  if (!CHOICE_TYPES.includes(type)) return `choices are only for ${CHOICE_TYPES.join(', ')} definitions.`;
  if (choices.length > MAX_CHOICES) return `choices must have at most ${MAX_CHOICES} items.`;
  const integers = type.endsWith('integer');
  for (const [index, choice] of choices.entries()) {
    const problem = integers
      ? /^-?(0|[1-9]\d*)$/.test(choice) && Number.isSafeInteger(Number(choice))
        ? undefined
        : 'must be a whole number written as a string, e.g. "10"'
      : baseProblem('single_line_text', choice);
    if (problem) return `choices[${index}] ${problem}.`;
  }
  return undefined;
}
