import type { ErrorObject } from 'ajv';
import { AppError, type ErrorDetail } from '../shared/errors.js';

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be a valid email address',
  'date-time': 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T09:30:00Z',
  date: 'must be a date in the form YYYY-MM-DD',
  hostname: 'must be a host name such as shop.example.com',
  uri: 'must be an absolute URL',
  uuid: 'must be a UUID',
};

const PATTERN_MESSAGES: Record<string, string> = {
  '^[A-Z]{3}$': 'must be a 3-letter ISO 4217 currency code in capitals, e.g. USD',
  '^[A-Z]{2}$': 'must be a 2-letter ISO 3166-1 country code in capitals, e.g. DE',
  '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$': 'must be a BCP 47 language tag, e.g. en or en-GB',
  '\\S': 'must not be blank',
  '^[a-z0-9][a-z0-9_-]*$':
    'must start with a lowercase letter or digit and hold only lowercase letters, digits, _ and -',
  '^https://': 'must be an https:// URL',
  '^https?://': 'must be an http:// or https:// URL',
};

// Longer lists (the event catalogue) are not spelled out in a message; the rejected value is named instead.
const MAX_LISTED_VALUES = 12;

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function describeType(type: string | string[]): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => (t === 'null' ? 'null' : article(t))).join(' or ');
}

function fieldOf(error: ErrorObject, parameters: boolean): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(error.params.missingProperty as string);
  if (error.keyword === 'additionalProperties') segments.push(error.params.additionalProperty as string);
  if (error.keyword === 'propertyNames') segments.push(error.params.propertyName as string);
  // A problem found inside `propertyNames` (the key's own pattern, length, ...) is about that key.
  const key = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (key !== undefined && error.keyword !== 'propertyNames') segments.push(key);
  // Parameters are named as sent (`expand`, not `expand[1]`); body fields by their path.
  if (parameters && segments.length > 0) return segments[0];
  const path = segments.reduce(
    (out, segment) => (/^\d+$/.test(segment) ? `${out}[${segment}]` : out ? `${out}.${segment}` : segment),
    '',
  );
  return path || 'body';
}

/** The value at an error's instance path in the validated data, if there is one. */
function valueAt(data: unknown, error: ErrorObject): unknown {
  let value = data;
  for (const segment of error.instancePath.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

function messageOf(error: ErrorObject, field: string, data?: unknown): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `${field} is required.`;
    case 'additionalProperties':
      return `${field} is not a field this operation accepts.`;
    case 'type':
      return `${field} must be ${describeType(p.type as string | string[])}.`;
    case 'minLength':
      return `${field} must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long.`;
    case 'maxLength':
      return `${field} must be at most ${p.limit} characters long.`;
    case 'minimum':
      return `${field} must be at least ${p.limit}.`;
    case 'maximum':
      return `${field} must be at most ${p.limit}.`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${p.limit}.`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${p.limit}.`;
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const value = valueAt(data, error);
      if (allowed.length > MAX_LISTED_VALUES && value !== undefined) {
        return `${field} must be one of the ${allowed.length} values listed in the API reference; ${JSON.stringify(value)} is not one of them.`;
      }
      return `${field} must be one of: ${allowed.join(', ')}.`;
    }
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}.`;
    case 'format':
      return `${field} ${FORMAT_MESSAGES[p.format as string] ?? `must be a valid ${p.format}`}.`;
    case 'pattern':
      return `${field} ${PATTERN_MESSAGES[p.pattern as string] ?? `must match the pattern ${p.pattern}`}.`;
    case 'minItems':
      return `${field} must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `${field} must have at most ${p.limit} items.`;
    case 'uniqueItems':
      return `${field} must not contain duplicates.`;
    case 'minProperties':
      return field === 'body' ? 'Send at least one field.' : `${field} must have at least ${p.limit} keys.`;
    case 'maxProperties':
      return `${field} must have at most ${p.limit} keys.`;
    case 'multipleOf':
      return `${field} must be a multiple of ${p.multipleOf}.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

/**
 * The error for a failed validation: one invalid field answers invalid_request with `field`, several
 * answer validation_error with one detail per field (the first problem of each). `found` are problems
 * found without a schema (unknown query parameters), listed first.
 */
export function validationError(
  failures: Array<{
    errors: ErrorObject[];
    parameters?: boolean;
    /** What was validated, to name rejected values. */ data?: unknown;
  }>,
  found: ErrorDetail[] = [],
): AppError {
  const byField = new Map<string, string>(found.map(({ field, message }) => [field, message]));
  for (const { errors, parameters = false, data } of failures) {
    for (const error of errors) {
      if (error.keyword === 'propertyNames' && error.params.propertyName === undefined) continue;
      const field = fieldOf(error, parameters);
      if (!byField.has(field)) byField.set(field, messageOf(error, field, data));
    }
  }
  const details: ErrorDetail[] = [...byField].map(([field, message]) => ({ field, message }));
  if (details.length === 1) return new AppError('invalid_request', details[0].message, { field: details[0].field });
  return new AppError('validation_error', `${details.length} fields are invalid.`, { details });
}
