/**
 * `npm run spec:common-responses`: declares what the pipeline may answer on every operation: 400 on all
 * of them (an unknown query parameter is refused everywhere), 503 on all of them (`ServiceUnavailable`: the
 * database does not answer; see src/db/availability.ts), and on every operation that counts against
 * the rate limit (key or customer-token authenticated) the 429 answer (`TooManyRequests`) and the
 * rate-limit headers (X-RateLimit-*, RateLimit-Policy, RateLimit) on each of its answers and on the shared
 * answers; the own 400 answers of browser operations also declare their CORS headers. Edits the text in place (the rest
 * of the file stays as written) and is idempotent; `npm run lint:spec` fails when an operation lacks them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';
import type { OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { badRequestFor } from './bad-request-examples.js';
import { declareConditionalRequests } from './conditional-requests.js';
import { listOperations } from './operations.js';

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': '#/components/headers/RateLimitLimit',
  'X-RateLimit-Remaining': '#/components/headers/RateLimitRemaining',
  'X-RateLimit-Reset': '#/components/headers/RateLimitReset',
  'RateLimit-Policy': '#/components/headers/RateLimitPolicy',
  RateLimit: '#/components/headers/RateLimit',
} as const;
/**
 * Shared answers given before (or without) the rate limiter's count, so they do not carry the X-RateLimit-*
 * headers: 503 is what a request gets when the database, which holds the counts, does not answer.
 */
export const WITHOUT_RATE_LIMIT_HEADERS = new Set(['ServiceUnavailable']);
/** Operations whose requests count against the project's limits. */
export const countsAgainstLimits = (auth: string) => ['secret', 'publishable', 'customer'].includes(auth);

const file = path.resolve(import.meta.dirname, '../openapi.yaml');

interface Insertion {
  at: number;
  text: string;
  /** Characters replaced from `at` on (0: a pure insertion). */
  replace?: number;
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const keyOf = (pair: Pair) => (isScalar(pair.key) ? String(pair.key.value) : '');
const keyOffset = (pair: Pair) => (pair.key as { range: [number, number, number] }).range[0];

function main(): void {
  const text = readFileSync(file, 'utf8');
  const document = parseDocument(text, { keepSourceTokens: true });
  const insertions: Insertion[] = [];
  for (const op of listOperations(document.toJS() as OpenApiDocument)) {
    const responses = document.getIn(['paths', op.path, op.method, 'responses']) as YAMLMap;
    const pairs = responses.items;
    const declare = (status: number, ref: string) => {
      if (pairs.some((pair) => keyOf(pair) === String(status))) return;
      const next = pairs.find((pair) => Number(keyOf(pair)) > status);
      const neighbour = next ?? pairs.at(-1)!;
      const indent = ' '.repeat(keyOffset(neighbour) - lineStart(text, keyOffset(neighbour)));
      // Before the first greater status, else after the last response (the line its value ends on).
      const at = next
        ? lineStart(text, keyOffset(next))
        : text.indexOf('\n', (neighbour.value as { range: [number, number, number] }).range[1] - 1) + 1;
      insertions.push({ at, text: `${indent}'${status}': { $ref: '#/components/responses/${ref}' }\n` });
    };
    declare(400, 'BadRequest');
    declare(503, 'ServiceUnavailable');
    if (!countsAgainstLimits(op.auth)) continue;
    declare(429, 'TooManyRequests');
    for (const pair of pairs)
      if (isMap(pair.value) && !pair.value.has('$ref')) insertions.push(...headerInsertions(text, pair));
  }
  const shared = document.getIn(['components', 'responses']) as YAMLMap;
  for (const pair of shared.items) {
    if (isMap(pair.value) && !WITHOUT_RATE_LIMIT_HEADERS.has(keyOf(pair)))
      insertions.push(...headerInsertions(text, pair));
  }

  let result = text;
  for (const { at, text: added, replace = 0 } of insertions.sort((a, b) => b.at - a.at)) {
    result = result.slice(0, at) + added + result.slice(at + replace);
  }
  const owned = ownBadRequests(result);
  // ETag, If-Match and 412 on mutable resources (codegen/conditional-requests.ts).
  const conditional = declareConditionalRequests(owned.text);
  writeFileSync(file, conditional.text);
  if (conditional.changed > 0) console.log(`Declared conditional requests in ${conditional.changed} place(s).`);
  console.log(
    insertions.length + owned.changed > 0
      ? `Declared common responses in ${insertions.length} place(s) of openapi.yaml; ${owned.changed} operation(s) got their own 400 example.`
      : 'openapi.yaml already declares the common responses everywhere.',
  );
}

/** The description that marks a 400 answer written by ownBadRequests (rewritten on every run). */
export const OWN_BAD_REQUEST =
  'A parameter or body field is invalid (`invalid_request` with `field`; `validation_error` with `details` when several are); the example is what this operation answers.';

/**
 * Gives every operation whose 400 is the shared `BadRequest` (or an answer written here before) its own
 * answer, with the example the server gives for a request that breaks one of the operation's rules
 * (codegen/bad-request-examples.ts), so Prism's 400 for that operation is its own.
 */
function ownBadRequests(text: string): { text: string; changed: number } {
  const document = parseDocument(text, { keepSourceTokens: true });
  const openapi = document.toJS() as OpenApiDocument;
  const edits: Insertion[] = [];
  for (const op of listOperations(openapi)) {
    const responses = document.getIn(['paths', op.path, op.method, 'responses']) as YAMLMap;
    const pair = responses.items.find((item) => keyOf(item) === '400');
    if (!pair || !isMap(pair.value)) continue;
    const shared = pair.value.get('$ref') === '#/components/responses/BadRequest';
    if (!shared && pair.value.get('description') !== OWN_BAD_REQUEST) continue;
    const bad = badRequestFor(openapi, op);
    if (!bad) continue;
    const keyAt = keyOffset(pair);
    const start = lineStart(text, keyAt);
    const indent = ' '.repeat(keyAt - start);
    const end = text.indexOf('\n', (pair.value as unknown as { range: [number, number, number] }).range[1] - 1) + 1;
    const inner = `${indent}  `;
    const cors = ['publishable', 'customer'].includes(op.auth) ? corsLines(`${inner}  `) : '';
    const headers = countsAgainstLimits(op.auth) ? `${inner}headers:\n${lines(`${inner}  `, undefined)}${cors}` : '';
    const block =
      `${indent}'400':\n${inner}description: ${JSON.stringify(OWN_BAD_REQUEST)}\n${headers}` +
      `${inner}content:\n${inner}  application/json:\n${inner}    schema: { $ref: '#/components/schemas/Error' }\n` +
      `${inner}    example: ${JSON.stringify(bad.answer)}\n`;
    if (text.slice(start, end) !== block) edits.push({ at: start, text: block, replace: end - start });
  }
  let result = text;
  for (const { at, text: added, replace = 0 } of edits.sort((a, b) => b.at - a.at)) {
    result = result.slice(0, at) + added + result.slice(at + replace);
  }
  return { text: result, changed: edits.length };
}

/** The CORS headers every answer of a browser operation carries (src/http/middleware/cors.ts). */
const corsLines = (inner: string) =>
  `${inner}Access-Control-Allow-Origin: { $ref: '#/components/headers/AccessControlAllowOrigin' }\n` +
  `${inner}Access-Control-Expose-Headers: { $ref: '#/components/headers/AccessControlExposeHeaders' }\n`;

const lines = (inner: string, existing: YAMLMap | undefined) =>
  Object.entries(RATE_LIMIT_HEADERS)
    .filter(([name]) => !existing?.has(name))
    .map(([name, ref]) => `${inner}${name}: { $ref: '${ref}' }\n`)
    .join('');

/** The lines that give a response the X-RateLimit-* headers it lacks. */
function headerInsertions(text: string, responsePair: Pair): Insertion[] {
  const response = responsePair.value as YAMLMap;
  const pairs = response.items;
  if (response.flow) {
    // `'204': { description: ... }` becomes a block map with the headers.
    if (pairs.length !== 1 || keyOf(pairs[0]) !== 'description')
      throw new Error(`Write the response at offset ${keyOffset(responsePair)} as a block map first.`);
    const keyAt = keyOffset(responsePair);
    const indent = ' '.repeat(keyAt - lineStart(text, keyAt) + 2);
    const [start, , end] = (response as unknown as { range: [number, number, number] }).range;
    const description = JSON.stringify(String((pairs[0].value as { value: unknown }).value));
    const block =
      `\n${indent}description: ${description}\n${indent}headers:\n${lines(indent + '  ', undefined)}`.replace(
        /\n$/,
        '',
      );
    const space = text[start - 1] === ' ' ? 1 : 0; // no trailing blank after the key
    return [{ at: start - space, text: block, replace: text.slice(start, end).trimEnd().length + space }];
  }
  const first = pairs[0];
  const indent = ' '.repeat(keyOffset(first) - lineStart(text, keyOffset(first)));
  const headers = pairs.find((pair) => keyOf(pair) === 'headers');
  if (headers && isMap(headers.value)) {
    const missing = lines(`${indent}  `, headers.value);
    if (!missing) return [];
    const last = headers.value.items.at(-1)!;
    const end = (last.value as { range: [number, number, number] }).range[2];
    return [{ at: text.indexOf('\n', end - 1) + 1, text: missing }];
  }
  // Before `content:` when there is one, else after the last key of the response.
  const content = pairs.find((pair) => keyOf(pair) === 'content');
  const at = content
    ? lineStart(text, keyOffset(content))
    : text.indexOf('\n', (pairs.at(-1)!.value as { range: [number, number, number] }).range[2] - 1) + 1;
  return [{ at, text: `${indent}headers:\n${lines(`${indent}  `, undefined)}` }];
}

if (import.meta.url === `file://${process.argv[1]}`) main();
