/**
 * JSON Schema (the subset openapi.yaml uses) → fast-check arbitraries of values that conform to it.
 * Keywords: $ref, type (and type arrays), enum, const, allOf, anyOf, oneOf, string (minLength, maxLength,
 * pattern, format), integer and number (minimum, maximum, exclusiveMinimum), array (items, minItems,
 * maxItems, uniqueItems), object (properties, required, additionalProperties, propertyNames, minProperties,
 * maxProperties). No npm package covered this with fast-check 4 (json-schema-fast-check pins fast-check 1),
 * so it is written here.
 */
import fc from 'fast-check';
import { type IdPool, ID_PATTERN } from './id-pool.js';
import { nastyString } from './nasty.js';

export type Schema = Record<string, any>;

export interface SchemaContext {
  /** `#/components/schemas` of the document. */
  components: Record<string, Schema>;
  /** Real ids of resources that exist, for id-shaped strings. */
  ids: IdPool;
}

const REF = '#/components/schemas/';

/** The schema a `$ref` names, or the schema itself. */
export function deref(schema: Schema, components: Record<string, Schema>): Schema {
  let current = schema;
  for (let i = 0; current?.$ref && i < 20; i++) current = components[String(current.$ref).slice(REF.length)];
  return current ?? {};
}

/** allOf merged into one schema (properties, required and limits of every part). */
function mergeAllOf(schema: Schema, components: Record<string, Schema>): Schema {
  if (!schema.allOf) return schema;
  const merged: Schema = { ...schema, allOf: undefined };
  for (const part of schema.allOf as Schema[]) {
    const p = mergeAllOf(deref(part, components), components);
    for (const [key, value] of Object.entries(p)) {
      if (key === 'properties') merged.properties = { ...merged.properties, ...value };
      else if (key === 'required') merged.required = [...new Set([...(merged.required ?? []), ...value])];
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  return merged;
}

/** The schema with $ref and allOf resolved at its top. */
export function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  return mergeAllOf(deref(schema, components), components);
}

/** The JSON types a schema admits. */
export function typesOf(schema: Schema): string[] {
  if (schema.type) return [schema.type].flat();
  if (schema.const !== undefined)
    return [schema.const === null ? 'null' : Array.isArray(schema.const) ? 'array' : typeof schema.const];
  if (schema.enum) return [...new Set((schema.enum as unknown[]).map((v) => (v === null ? 'null' : typeof v)))];
  if (schema.properties || schema.required) return ['object'];
  if (schema.items) return ['array'];
  return ['string', 'integer', 'boolean', 'null', 'object'];
}

const MAX_DEPTH = 6;

/** Values conforming to `schema`. */
export function valid(schema: Schema, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, context.components);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) {
    const own = { ...s, anyOf: undefined, oneOf: undefined };
    // Past the depth limit, the branch without nesting (usually null) keeps recursion finite.
    const usable =
      depth >= MAX_DEPTH
        ? branches.filter((b) => !['object', 'array'].some((t) => typesOf(resolve(b, context.components)).includes(t)))
        : branches;
    return fc.oneof(
      ...(usable.length ? usable : branches).map((b) =>
        valid({ ...own, ...resolve(b, context.components) }, context, depth + 1),
      ),
    );
  }
  const types = typesOf(s).filter(
    (t) => depth < MAX_DEPTH || (t !== 'object' && t !== 'array') || typesOf(s).length === 1,
  );
  return fc.oneof(...types.map((type) => validOfType(type, s, context, depth)));
}

function validOfType(type: string, s: Schema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integer(s);
    case 'number':
      return number(s);
    case 'string':
      return string(s, context);
    case 'array':
      return array(s, context, depth);
    case 'object':
      return object(s, context, depth);
    default:
      throw new Error(`schema-arbitrary: unsupported type ${type}`);
  }
}

function integer(s: Schema): fc.Arbitrary<number> {
  // Unbounded means any integer JSON carries exactly: past 32 bits too, where integer columns end.
  let min = s.minimum ?? -Number.MAX_SAFE_INTEGER;
  if (s.exclusiveMinimum !== undefined) min = Math.max(min, Math.floor(s.exclusiveMinimum) + 1);
  const max = s.maximum ?? Number.MAX_SAFE_INTEGER;
  // Bounds and small values are where rules live; the whole range finds the rest.
  const [low, high] = [Math.max(min, -5), Math.min(max, 100)];
  const edges = [min, max, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1].filter((n) => n >= min && n <= max);
  return fc.oneof(
    fc.maxSafeInteger().map((n) => Math.min(max, Math.max(min, n))),
    fc.constantFrom(...edges),
    ...(low <= high ? [fc.integer({ min: low, max: high })] : []),
  );
}

function number(s: Schema): fc.Arbitrary<number> {
  const min = s.minimum ?? -1e9;
  const max = s.maximum ?? 1e9;
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => {
    const x = Object.is(n, -0) ? 0 : n;
    return s.exclusiveMinimum !== undefined && x <= s.exclusiveMinimum ? Math.min(max, s.exclusiveMinimum + 1) : x;
  });
}

const DATE_MIN = new Date('2000-01-01T00:00:00Z');
const DATE_MAX = new Date('2099-12-31T23:59:59Z');

/** Plain addresses at example domains (made once: a string arbitrary costs milliseconds to make). */
const EXAMPLE_EMAIL = fc.stringMatching(/^[a-z0-9]{1,20}@example\.(com|org)$/);

function formatted(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'email':
      return fc.oneof(
        fc.emailAddress().filter((e) => e.length <= 254),
        EXAMPLE_EMAIL,
      );
    case 'date-time':
      return fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl({ validSchemes: ['https'], withQueryParameters: true });
    case 'hostname':
      return fc.domain();
    default:
      return undefined;
  }
}

/**
 * `arbitrary`'s values that satisfy `fits`, else `fallback`: a filter that can never loop forever, where
 * a strategy cannot produce a fitting value for some schema (nasty strings under a 43-character pattern).
 */
function fitting<T>(arbitrary: fc.Arbitrary<T>, fits: (v: T) => boolean, fallback: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return arbitrary.chain((v) => (fits(v) ? fc.constant(v) : fallback));
}

/**
 * Set by `withExample` (operations.ts) on a leaf the request example of the contract fills: the prefixes of
 * the id it shows (a reference, drawn from the id pool) or the example value itself (drawn now and then).
 */
export const EXAMPLE_IDS = 'x-fuzz-example-ids';
export const EXAMPLE_VALUE = 'x-fuzz-example-value';

function string(s: Schema, context: SchemaContext): fc.Arbitrary<string> {
  const generated = schemaString(s, context);
  // A string the request example shows as an id (`product_ids: ["prod_..."]`) names a resource that exists,
  // as id patterns do; one it shows as a value (`currency: USD`, `country: US`) is sometimes that value.
  if (s[EXAMPLE_IDS])
    return fc.oneof(
      { arbitrary: context.ids.arbitrary(s[EXAMPLE_IDS]), weight: 4 },
      { arbitrary: generated, weight: 1 },
    );
  if (typeof s[EXAMPLE_VALUE] === 'string')
    return fc.oneof({ arbitrary: generated, weight: 3 }, { arbitrary: fc.constant(s[EXAMPLE_VALUE]), weight: 1 });
  return generated;
}

const matchingStrings = new Map<string, fc.Arbitrary<string>>();

/**
 * fast-check's strings matching `pattern`, made once per pattern: making one costs milliseconds (fast-check builds
 * the strings it biases towards by testing its candidates against every character class), and the contract repeats
 * patterns (`\S` on 40 fields). An arbitrary keeps no state, so one serves every schema with that pattern.
 */
function matchingString(pattern: string): fc.Arbitrary<string> {
  let arbitrary = matchingStrings.get(pattern);
  if (!arbitrary) {
    arbitrary = fc.stringMatching(new RegExp(pattern), { size: 'small' });
    matchingStrings.set(pattern, arbitrary);
  }
  return arbitrary;
}

function schemaString(s: Schema, context: SchemaContext): fc.Arbitrary<string> {
  const minLength: number = s.minLength ?? 0;
  const maxLength: number = s.maxLength ?? 5000;
  const pattern = s.pattern ? new RegExp(s.pattern, 'u') : undefined;
  const fits = (v: string) => v.length >= minLength && v.length <= maxLength && (!pattern || pattern.test(v));
  const byFormat = s.format ? formatted(s.format) : undefined;
  // Always valid, for when a strategy misses: the schema's example, else the shortest plain string.
  const last = fc.constant(typeof s.example === 'string' && fits(s.example) ? s.example : 'x'.repeat(minLength));
  if (s.pattern) {
    const prefix = ID_PATTERN.exec(s.pattern);
    const matching = fitting(matchingString(s.pattern), fits, last);
    if (prefix) {
      // An id reference: a resource that exists (so rules run), or any id of the right form.
      const alternatives = prefix[1].split('|');
      return fc.oneof(
        { arbitrary: context.ids.arbitrary(alternatives), weight: 4 },
        { arbitrary: matching, weight: 1 },
      );
    }
    const base = byFormat ? fitting(byFormat, fits, matching) : matching;
    // Strings such as `\S` or `^[^\r\n]*$` still get the nasty characters when they fit the pattern.
    return fc.oneof({ arbitrary: base, weight: 3 }, { arbitrary: fitting(nastyString(), fits, base), weight: 1 });
  }
  if (byFormat) return fitting(byFormat, fits, last);
  const cap = Math.max(Math.min(maxLength, 40), minLength);
  const plain = fc.string({ minLength, maxLength: cap, unit: 'grapheme-ascii' });
  // Padded and cut to the length limits, so the nasty part survives.
  const nasty = nastyString().map((v) =>
    (v.length < minLength ? v + 'x'.repeat(minLength - v.length) : v).slice(0, maxLength),
  );
  return fc.oneof(
    { arbitrary: plain, weight: 3 },
    { arbitrary: fitting(fc.string({ minLength, maxLength: cap, unit: 'binary' }), fits, plain), weight: 1 },
    { arbitrary: fitting(nasty, fits, plain), weight: 2 },
    // Exactly at the limits.
    { arbitrary: fc.constantFrom(minLength, Math.min(maxLength, 10_000)).map((n) => 'x'.repeat(n)), weight: 1 },
  );
}

function array(s: Schema, context: SchemaContext, depth: number): fc.Arbitrary<unknown[]> {
  const items = s.items ?? {};
  const minLength: number = s.minItems ?? 0;
  const maxLength: number = Math.max(minLength, Math.min(s.maxItems ?? 4, 4));
  // Past MAX_DEPTH an array that may be empty is (a recursive schema, e.g. a menu's nested items, ends here).
  if (depth >= MAX_DEPTH && minLength === 0) return fc.constant([]);
  const item = valid(items, context, depth + 1);
  // Unique items: duplicates dropped after generation (an enum of two cannot fill four distinct slots).
  if (s.uniqueItems)
    return fc
      .array(item, { minLength, maxLength })
      .map((a) => [...new Map(a.map((v) => [JSON.stringify(v), v])).values()]);
  return fc.array(item, { minLength, maxLength });
}

function object(s: Schema, context: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = s.properties ?? {};
  const required = new Set<string>(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of Object.entries(properties)) {
    // Past MAX_DEPTH only the required properties (a recursive schema ends here).
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    model[name] = valid(schema, context, depth + 1);
  }
  const known = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
  const extra =
    s.additionalProperties && typeof s.additionalProperties === 'object'
      ? fc.dictionary(
          s.propertyNames
            ? (valid({ type: 'string', ...s.propertyNames }, context, depth + 1) as fc.Arbitrary<string>)
            : fc.string({ minLength: 1, maxLength: 20 }),
          valid(s.additionalProperties, context, depth + 1),
          { maxKeys: 3 },
        )
      : fc.constant({});
  const min: number = s.minProperties ?? 0;
  const max: number = s.maxProperties ?? Infinity;
  // Too few keys: the first properties are added (with values of their own), never an endless filter.
  const fill = fc.record(model);
  return fc.tuple(known, extra, fill).map(([k, e, f]) => {
    const v: Record<string, unknown> = { ...e, ...k };
    for (const name of Object.keys(f)) if (Object.keys(v).length < min && !(name in v)) v[name] = f[name];
    while (Object.keys(v).length > max) delete v[Object.keys(v).pop()!];
    return v;
  });
}
