/**
 * Request arbitraries for every operation of the generated operation index, from the parameters and
 * request body openapi.yaml gives it: valid requests (real ids where the parameter names a resource) and
 * invalid ones (mutated parameters and bodies, unknown parameters, wrong credentials now and then).
 */
import fc from 'fast-check';
import { openapiJson } from '../../src/generated/document.js';
import { operationIndex, type OperationMeta } from '../../src/generated/operations.js';
import { IdPool } from './id-pool.js';
import { hostileValue, mutated, PAST_COLUMN_RANGES_TEXT } from './invalid.js';
import { nastyString } from './nasty.js';
import {
  EXAMPLE_IDS,
  EXAMPLE_VALUE,
  resolve,
  typesOf,
  valid,
  type Schema,
  type SchemaContext,
} from './schema-arbitrary.js';

export interface FuzzRequest {
  operationId: string;
  method: string;
  /** Path with parameters filled in and encoded. */
  path: string;
  /** Query string without `?` (may be empty). */
  query: string;
  headers: Record<string, string>;
  /** JSON body, already serialised (undefined: none). */
  body?: string;
  /** Which credential was sent: the operation's own class, or a deliberately wrong one. */
  credential: 'right' | 'wrong' | 'none';
  /** Whether the generator meant the request to be valid (statistics only). */
  intent: 'valid' | 'invalid';
}

/** The credentials of the fuzzed project, read when a request is generated (customer tokens change). */
export interface Credentials {
  secret: string;
  publishable: string;
  platform: string;
  metrics: string;
  customerToken: () => string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
  example?: unknown;
  description?: string;
}

export const document = JSON.parse(openapiJson) as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
};

function parametersOf(operation: OperationMeta): Parameter[] {
  const item = document.paths[operation.path];
  const op = item[operation.method.toLowerCase()];
  const all = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) =>
    p.$ref ? document.components.parameters[String(p.$ref).split('/').pop()!] : p,
  ) as Parameter[];
  // An operation-level parameter overrides a path-level one of the same name and place.
  return [...new Map(all.map((p) => [`${p.in}:${p.name}`, p])).values()];
}

export function bodySchemaOf(operation: OperationMeta): Schema | undefined {
  const op = document.paths[operation.path][operation.method.toLowerCase()];
  let body = op.requestBody;
  if (body?.$ref) body = (document.components as any).requestBodies[String(body.$ref).split('/').pop()!];
  const media = body?.content?.['application/json'];
  if (!media?.schema) return undefined;
  const example = media.example ?? resolve(media.schema, document.components.schemas).example;
  return example === undefined ? media.schema : withExample(media.schema, example);
}

/**
 * The body schema with what the contract's request example teaches marked on its string leaves: a string
 * the example shows as an id (`"product_ids": ["prod_..."]`, where the schema has no id pattern) is a
 * reference to draw from the id pool, and any other string it shows (`"currency": "USD"`, `"country":
 * "US"`) is a value that works, sent now and then. Only where the schema itself admits the value; the
 * schema keeps every other keyword, so the values stay valid.
 */
function withExample(schema: Schema, example: unknown, depth = 0): Schema {
  const s = resolve(schema, document.components.schemas);
  if (depth > 8 || s.anyOf || s.oneOf) return schema;
  if (typeof example === 'string' && typesOf(s).includes('string') && !s.enum && s.const === undefined) {
    const id = ID_EXAMPLE.exec(example);
    if (id && !s.pattern) return { ...s, [EXAMPLE_IDS]: [id[1]] };
    return id ? schema : { ...s, [EXAMPLE_VALUE]: example };
  }
  if (Array.isArray(example) && example.length > 0 && s.items)
    return { ...s, items: withExample(s.items, example[0], depth + 1) };
  if (example && typeof example === 'object' && !Array.isArray(example) && s.properties) {
    const properties = { ...s.properties };
    for (const [name, value] of Object.entries(example))
      if (properties[name]) properties[name] = withExample(properties[name], value, depth + 1);
    return { ...s, properties };
  }
  return schema;
}

const ID_EXAMPLE = /^([a-z]+)_[0-9a-z]{26}$/;

/** Valid values of one parameter; id-like ones (by their example) favour resources that exist. */
function validParameter(parameter: Parameter, context: SchemaContext): fc.Arbitrary<unknown> {
  const fromSchema = valid(parameter.schema ?? { type: 'string' }, context);
  // The example's prefix, and every prefix the description names (`img_...` or `file_...`).
  const prefixes = new Set<string>(
    [...String(parameter.description ?? '').matchAll(/`([a-z]+)_\.\.\.`/g)].map((m) => m[1]),
  );
  const example = typeof parameter.example === 'string' ? ID_EXAMPLE.exec(parameter.example)?.[1] : undefined;
  if (example) prefixes.add(example);
  if (prefixes.size === 0) return fromSchema;
  return fc.oneof({ arbitrary: context.ids.arbitrary([...prefixes]), weight: 5 }, { arbitrary: fromSchema, weight: 1 });
}

/** A parameter value as it goes into a URL (arrays comma-joined, as the API takes them). */
function text(value: unknown): string {
  if (Array.isArray(value)) return value.map(text).join(',');
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encoding that keeps lone surrogates as the (invalid UTF-8) bytes a careless client would send. */
export function encode(value: string): string {
  return value
    .split(LONE_SURROGATE)
    .map(encodeURIComponent)
    .reduce((out, part, i) => {
      if (i === 0) return part;
      const unit = value.match(LONE_SURROGATE)![i - 1].charCodeAt(0);
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      return out + bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('') + part;
    }, '');
}

/** The longest path segment once encoded: two of them stay under 8 KiB (see README). */
const MAX_SEGMENT = 3_000;

/**
 * A path segment as sent: percent-encoded; `.` and `..` (dot segments even when encoded, which the URL
 * parser folds away) and the empty string (which would name another route) get an `x`. A value whose
 * encoding is longer than MAX_SEGMENT (1,500 characters of `é` encode to 9,000) is cut, by code points.
 */
function segment(value: string): string {
  if (/^(\.|%2e){0,2}$/i.test(value)) return `${value}x`;
  let chars = Array.from(value);
  let encoded = encode(value);
  while (encoded.length > MAX_SEGMENT) {
    chars = chars.slice(0, Math.floor((chars.length * MAX_SEGMENT) / encoded.length));
    encoded = encode(chars.join(''));
  }
  return encoded;
}

// Header values the client can send: visible ASCII and spaces.
const headerSafe = (value: string) => value.replace(/[^\x20-\x7e]/g, '').trim();

/** Mutated parameter values: hostile strings, wrong types as text, over-long values. */
const invalidParameterText: fc.Arbitrary<string> = fc.oneof(
  nastyString(),
  // Long, but URLs are kept under 8 KiB below (what proxies and Node's 16 KiB header limit, 431, let through).
  hostileValue
    .map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined')))
    .map((s) => s.slice(0, 1_500)),
  fc.constantFrom(
    '-1',
    '0',
    '1.5',
    '1e99',
    '99999999999999999999',
    'abc',
    '',
    ' ',
    'true',
    'null',
    '[]',
    'a,b,,c',
    ',,,',
  ),
);

interface Plan {
  operation: OperationMeta;
  parameters: Parameter[];
  body?: Schema;
}

function credentialHeaders(
  operation: OperationMeta,
  credentials: Credentials,
  which: FuzzRequest['credential'],
  wrongKind: number,
): Record<string, string> {
  if (which === 'none') return {};
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  if (which === 'wrong') {
    const wrong: Array<Record<string, string>> = [
      bearer(credentials.publishable),
      bearer(credentials.secret),
      bearer('sk_test_' + 'A'.repeat(40)),
      bearer('not-a-key'),
      { Authorization: 'Basic Zm9vOmJhcg==' },
      { 'X-API-Key': credentials.secret },
      { 'X-API-Key': credentials.publishable, Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' },
    ];
    return wrong[wrongKind % wrong.length];
  }
  switch (operation.auth) {
    case 'none':
      return {};
    case 'secret':
      return bearer(credentials.secret);
    case 'publishable':
      // Publishable operations take the publishable key in X-API-Key or as Bearer, and a secret key as Bearer
      // (never in X-API-Key: that is one of the wrong ones above).
      return [{ 'X-API-Key': credentials.publishable }, bearer(credentials.publishable), bearer(credentials.secret)][
        wrongKind % 3
      ];
    case 'customer':
      return { 'X-API-Key': credentials.publishable, ...bearer(credentials.customerToken()) };
    case 'platform':
      return bearer(credentials.platform);
    case 'metrics':
      return bearer(credentials.metrics);
  }
}

/**
 * Valid values that meet an operation's preconditions (fixtures.ts): path parameters and bodies that name
 * a resource in the state the success path needs. Mixed in with the values from the schemas, 1 in 2, and
 * mutated like them in invalid requests.
 */
export interface Hint {
  path?: fc.Arbitrary<Record<string, unknown>>;
  body?: fc.Arbitrary<unknown>;
  /** Path parameters and body that only work together (drawn as one; mixed in and mutated like the others). */
  request?: fc.Arbitrary<{ path: Record<string, unknown>; body: unknown }>;
}

/** The request arbitrary of one operation. */
export function requestArbitrary(
  operation: OperationMeta,
  context: SchemaContext,
  credentials: Credentials,
  hint: Hint = {},
): fc.Arbitrary<FuzzRequest> {
  const plan: Plan = {
    operation,
    parameters: parametersOf(operation),
    body: operation.hasBody ? bodySchemaOf(operation) : undefined,
  };
  const pathParams = plan.parameters.filter((p) => p.in === 'path');
  const queryParams = plan.parameters.filter((p) => p.in === 'query');
  const headerParams = plan.parameters.filter((p) => p.in === 'header');

  const schemaPath = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, validParameter(p, context)])));
  const validPath = hint.path ? fc.oneof(schemaPath, hint.path) : schemaPath;
  const queryModel = Object.fromEntries(queryParams.map((p) => [p.name, validParameter(p, context)]));
  const validQuery = fc.record(queryModel, { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) });
  const validHeaders = fc.record(Object.fromEntries(headerParams.map((p) => [p.name, validParameter(p, context)])), {
    requiredKeys: [],
  });
  const schemaBody: fc.Arbitrary<unknown> = plan.body ? valid(plan.body, context) : fc.constant(undefined);
  const validBody = plan.body && hint.body ? fc.oneof(schemaBody, hint.body) : schemaBody;

  // Invalid: each part mutated with some probability; at least one part is mutated. Numeric parameters are
  // also, half the time, given a value just past a column's range.
  const mutatedRecord = (params: Parameter[], base: fc.Arbitrary<Record<string, unknown>>) => {
    const numeric = params.filter((p) =>
      typesOf(resolve(p.schema, context.components)).some((t) => t === 'integer' || t === 'number'),
    );
    return fc
      .tuple(
        base,
        fc.array(fc.tuple(fc.nat(), invalidParameterText), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom(...PAST_COLUMN_RANGES_TEXT)), { freq: 1 }),
      )
      .map(([values, changes, addUnknown, unknownName, pastColumn]) => {
        const out: Record<string, unknown> = { ...values };
        for (const [n, bad] of changes) if (params.length) out[params[n % params.length].name] = bad;
        if (pastColumn && numeric.length) out[numeric[pastColumn[0] % numeric.length].name] = pastColumn[1];
        if (addUnknown || !params.length) out[unknownName] = 'x';
        return out;
      });
  };

  const idempotencyKey = fc.oneof(
    fc.uuid(),
    fc
      .string({ minLength: 1, maxLength: 40, unit: 'grapheme-ascii' })
      .map(headerSafe)
      .filter((s) => s.length > 0 && !/\s/.test(s)),
  );

  return fc
    .record({
      intent: fc.constantFrom<'valid' | 'invalid'>('valid', 'valid', 'invalid', 'invalid', 'invalid'),
      which: fc.oneof(
        { arbitrary: fc.constant<'right'>('right'), weight: 30 },
        { arbitrary: fc.constantFrom<'wrong' | 'none'>('wrong', 'none'), weight: 1 },
      ),
      wrongKind: fc.nat(),
      mutate: fc.record({ path: fc.boolean(), query: fc.boolean(), body: fc.boolean(), header: fc.boolean() }),
      idempotency: fc.option(idempotencyKey, { nil: undefined, freq: 3 }),
    })
    .chain(({ intent, which, wrongKind, mutate, idempotency }) => {
      const parts = {
        path: mutate.path && pathParams.length > 0,
        query: mutate.query,
        body: mutate.body && !!plan.body,
        header: mutate.header && headerParams.length > 0,
      };
      if (intent === 'invalid' && !Object.values(parts).some(Boolean)) {
        if (plan.body) parts.body = true;
        else if (pathParams.length) parts.path = true;
        else parts.query = true;
      }
      const bad = intent === 'invalid';
      const query = bad && parts.query ? mutatedRecord(queryParams, validQuery) : validQuery;
      const headers = bad && parts.header ? mutatedRecord(headerParams, validHeaders) : validHeaders;
      const parameters = hint.request
        ? // A joint hint: path and body are drawn together, then mutated like independent ones.
          fc
            .record({
              pathAndBody: fc.oneof(fc.record({ path: validPath, body: validBody }), hint.request),
              query,
              headers,
            })
            .chain(({ pathAndBody, query, headers }) =>
              fc.record({
                path:
                  bad && parts.path
                    ? mutatedRecord(pathParams, fc.constant(pathAndBody.path))
                    : fc.constant(pathAndBody.path),
                query: fc.constant(query),
                headers: fc.constant(headers),
                body: bad && parts.body ? mutated(fc.constant(pathAndBody.body)) : fc.constant(pathAndBody.body),
              }),
            )
        : fc.record({
            path: bad && parts.path ? mutatedRecord(pathParams, validPath) : validPath,
            query,
            headers,
            body: bad && parts.body ? mutated(validBody) : validBody,
          });
      return parameters.map(({ path, query, headers, body }): FuzzRequest => {
        const url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => segment(text(path[name] ?? '')));
        const search: string[] = [];
        for (const [name, value] of Object.entries(query))
          if (value !== undefined) search.push(`${encode(name)}=${encode(text(value))}`);
        // Whole URLs under 8 KiB once encoded (see README): the longest parameters are left out until it fits.
        while (search.length > 0 && url.length + search.join('&').length > 8_000)
          search.splice(search.indexOf(search.reduce((a, b) => (b.length > a.length ? b : a))), 1);
        const sent: Record<string, string> = {};
        // Header names and values as HTTP can carry them (a name outside the token characters is no request at all).
        for (const [name, value] of Object.entries(headers))
          if (value !== undefined) sent[name.replace(/[^A-Za-z0-9-]/g, '') || 'X-Unknown'] = headerSafe(text(value));
        if (operation.idempotent && idempotency) sent['Idempotency-Key'] = idempotency;
        Object.assign(sent, credentialHeaders(operation, credentials, which, wrongKind));
        let serialised: string | undefined;
        if (plan.body && body !== undefined) {
          serialised = JSON.stringify(body);
          sent['Content-Type'] = 'application/json';
        }
        return {
          operationId: operation.operationId,
          method: operation.method,
          path: url,
          query: search.join('&'),
          headers: sent,
          body: serialised,
          credential: which,
          intent,
        };
      });
    });
}

/** The operations to fuzz: every one in the generated index. */
export const fuzzedOperations: readonly OperationMeta[] = operationIndex;

export { IdPool };
