import type { ErrorDetail } from '../shared/errors.js';

const MESSAGE = 'must not contain the NUL character (\\u0000).';

/**
 * One detail per place in the request that holds a NUL character (U+0000), in a value or an object key:
 * PostgreSQL text and jsonb cannot store it, so it is refused as invalid input here, for every operation
 * at once, instead of failing in the database. Body fields are named by path (`variants[0].title`),
 * parameters by name.
 */
export function nulCharacters(value: unknown, kind: 'body' | 'parameters'): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const visit = (node: unknown, path: string) => {
    if (typeof node === 'string') {
      if (node.includes('\u0000')) found.push({ field: path || 'body', message: `${path || 'The request body'} ${MESSAGE}` });
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, kind === 'parameters' && path ? path : `${path}[${i}]`));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const at = kind === 'parameters' && path ? path : path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) found.push({ field: at, message: `The name of ${at} ${MESSAGE}` });
        else visit(item, at);
      }
    }
  };
  visit(value, '');
  return found;
}
