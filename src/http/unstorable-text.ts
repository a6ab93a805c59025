import type { ErrorDetail } from '../shared/errors.js';

const what = (text: string) =>
  // eslint-disable-next-line no-control-regex -- NUL is what this looks for
  /\u0000/.test(text) ? 'the NUL character (\\u0000)' : 'an unpaired UTF-16 surrogate (not valid Unicode)';

// NUL: PostgreSQL text and jsonb cannot hold it. A lone surrogate is not Unicode text at all (jsonb refuses
// its escape; text columns would silently get U+FFFD instead).
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE_ALL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The same pattern without the global flag (a /g regex keeps its position between test() calls). */
const UNSTORABLE = new RegExp(UNSTORABLE_ALL.source);

/** The key with what PostgreSQL cannot store written as a `\uXXXX` escape, so the answer naming it can be stored (an Idempotency-Key's answer). */
const printable = (key: string) =>
  key.replace(UNSTORABLE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * One detail per place in the request that holds text PostgreSQL cannot store, in a value or an object
 * key: a NUL character, or a lone surrogate. Refused as invalid input here, for every operation at once,
 * instead of failing in the database. Body fields are named by path (`variants[0].title`), parameters by name.
 */
export function unstorableText(value: unknown, kind: 'body' | 'parameters'): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  // A stack, not recursion: a body may nest thousands of levels deep (body size is the only limit).
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (UNSTORABLE.test(node))
        found.push({ field: path || 'body', message: `${path || 'The request body'} must not contain ${what(node)}.` });
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--)
        stack.push([node[i], kind === 'parameters' && path ? path : `${path}[${i}]`]);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node).reverse()) {
        const at = kind === 'parameters' && path ? path : path ? `${path}.${key}` : key;
        if (UNSTORABLE.test(key)) {
          const shown = kind === 'parameters' && path ? path : path ? `${path}.${printable(key)}` : printable(key);
          found.push({ field: shown, message: `The name of ${shown} must not contain ${what(key)}.` });
        } else stack.push([item, at]);
      }
    }
  }
  return found;
}
