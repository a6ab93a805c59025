/**
 * Invalid inputs, made by mutating a valid value at one place: a wrong type, a required field dropped, an
 * unknown field, a number out of range, an over-long string, odd Unicode (NUL, lone surrogates), deep
 * nesting, a huge array; or every string replaced with SQL and JSON-path metacharacters.
 */
import fc from 'fast-check';
import { NASTY_FRAGMENTS, nastyString } from './nasty.js';

type Json = unknown;
type Path = Array<string | number>;

/** Every position in a JSON value (the root is []). */
function positions(value: Json, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, i) => positions(item, [...path, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) positions(v, [...path, k], out);
  return out;
}

function setAt(value: Json, path: Path, replace: (old: Json) => Json | typeof REMOVE): Json {
  if (path.length === 0) {
    const replaced = replace(value);
    return replaced === REMOVE ? undefined : replaced;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = setAt(copy[head as number], rest, replace);
    if (next === undefined && rest.length === 0) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...(value as Record<string, Json>) };
  const next = rest.length === 0 ? replace(copy[head as string]) : setAt(copy[head as string], rest, replace);
  if (next === REMOVE || next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

const REMOVE = Symbol('remove');

function deep(depth: number, kind: 'array' | 'object'): Json {
  let value: Json = 1;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/**
 * Numbers just past what the database's columns hold, whatever the contract declares: int4
 * (±2,147,483,648), bigint (±2^63), the money convention (100,000,000,001), and 1e25 as generators print it
 * (`1e+25`). A declared maximum missing or above its column shows up as a 500 here.
 */
export const PAST_COLUMN_RANGES: readonly number[] = [
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 63,
  -(2 ** 63),
  100_000_000_001,
  1e25,
];
/** The same as query or path text (bigint's edges exactly: JSON would round them). */
export const PAST_COLUMN_RANGES_TEXT: readonly string[] = [
  '2147483648',
  '-2147483649',
  '9223372036854775808',
  '-9223372036854775809',
  '100000000001',
  '1e+25',
];

/** A value of a different JSON type than the usual, or a hostile one of the same type. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0.0001,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 1,
    1e308,
    -1e308,
    '',
    ' ',
    '0',
    '1',
    'true',
    [],
    {},
    [null],
    { '': null },
    JSON.parse('{"__proto__":{"polluted":1}}'),
    { constructor: { prototype: 1 } },
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
  ),
  nastyString(),
  fc.integer({ min: 1, max: 4 }).map((n) => 'x'.repeat(10 ** n + 1)),
  fc.integer({ min: 1, max: 3 }).map((n) => 'é'.repeat(10 ** n * 3 + 7)),
  fc.constantFrom(200, 2000).chain((d) => fc.constantFrom(deep(d, 'array'), deep(d, 'object'))),
  fc.constantFrom(1000, 20_000).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.constantFrom(1000, 5000).map((n) => Array.from({ length: n }, () => 'x')),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.string({ maxLength: 20, unit: 'binary' }),
);

/** Replaces every string in `value` (object keys left alone) with a nasty one of the same JSON type. */
function everyString(value: Json, pick: () => string): Json {
  if (typeof value === 'string') return pick();
  if (Array.isArray(value)) return value.map((v) => everyString(v, pick));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, everyString(v, pick)]));
  return value;
}

/** Mutations of a valid value; most of them make it invalid somewhere. */
export function mutated(validValue: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return fc.oneof(
    // One place replaced with a hostile value.
    fc.tuple(validValue, fc.nat(), hostileValue).map(([v, n, bad]) => {
      const all = positions(v);
      return setAt(v, all[n % all.length], () => bad);
    }),
    // One field dropped (a required one, often).
    fc.tuple(validValue, fc.nat()).map(([v, n]) => {
      const all = positions(v).filter((p) => p.length > 0);
      return all.length ? setAt(v, all[n % all.length], () => REMOVE) : v;
    }),
    // An unknown field added to one object.
    fc
      .tuple(
        validValue,
        fc.nat(),
        fc.constantFrom('unknown_field', 'id', 'project_id', '__proto__', 'deleted_at', '$where', ''),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([v, n, key, extra]) => {
        const objects = positions(v).filter((p) => {
          let at: Json = v;
          for (const s of p) at = (at as Record<string, Json>)[s as string];
          return at !== null && typeof at === 'object' && !Array.isArray(at);
        });
        if (!objects.length) return v;
        return setAt(v, objects[n % objects.length], (old) =>
          JSON.parse(JSON.stringify({ ...(old as object), [key]: extra })),
        );
      }),
    // Every string made nasty (types kept, so much of this passes validation and reaches the database).
    fc
      .tuple(validValue, fc.array(fc.constantFrom(...NASTY_FRAGMENTS), { minLength: 1, maxLength: 3 }), fc.nat())
      .map(([v, fragments, n]) => {
        let i = n;
        return everyString(v, () => `${fragments[i++ % fragments.length]}x${fragments[(i * 7) % fragments.length]}`);
      }),
    // One number replaced with one just past a column's range.
    fc.tuple(validValue, fc.nat(), fc.constantFrom(...PAST_COLUMN_RANGES)).map(([v, n, past]) => {
      const numbers = positions(v).filter((p) => typeof p.reduce<Json>((at, s) => (at as any)[s], v) === 'number');
      return numbers.length ? setAt(v, numbers[n % numbers.length], () => past) : v;
    }),
    // The whole value of another type.
    hostileValue,
  );
}
