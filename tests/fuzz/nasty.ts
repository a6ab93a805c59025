import fc from 'fast-check';

/**
 * Strings that break careless code: SQL and LIKE metacharacters, JSON-path and Postgres jsonpath syntax,
 * NUL, lone surrogates, control and bidi characters, non-BMP characters, normalisation pairs, path tricks.
 */
export const NASTY_FRAGMENTS: readonly string[] = [
  "'",
  '"',
  "' OR '1'='1",
  "'; DROP TABLE products; --",
  '%',
  '_',
  '\\',
  '\\%',
  '%_%',
  '$',
  '$.',
  '$[*]',
  '$..*',
  '@.a == "x"',
  '?(@.x)',
  'like_regex ".*"',
  '{}',
  '[]',
  '{"a":1}',
  ':',
  '::text',
  '$1',
  '?',
  '*',
  '|',
  '&',
  '!',
  '<->',
  '(',
  ')',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udc00y',
  '\ud83d\ude00',
  '\u202e',
  '\u200b',
  '\ufeff',
  '\r\n',
  '\t',
  '\u0007',
  'e\u0301',
  '\u00e9',
  'İ',
  'ß',
  '../',
  '/',
  '%2F',
  '#',
  '&amp;',
  '<script>',
  '𝔘𝔫𝔦',
  ' ',
  '',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
];

/** Concatenations of nasty fragments and ordinary words. */
export function nastyString(): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(fc.constantFrom(...NASTY_FRAGMENTS), fc.constantFrom('a', 'shirt', 'ada', 'x1', 'Über')), {
      minLength: 1,
      maxLength: 5,
    })
    .map((parts) => parts.join(''));
}
