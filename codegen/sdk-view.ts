import type { OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { resourceName } from './sparse-schemas.js';

/**
 * The document as the SDK's types see it: every sparse answer (`anyOf: [X, XSparse]`) is X, the answer to
 * a request without `fields`. The client narrows answers to requests that send `fields` to sparse objects
 * (sdk/src/sparse.ts), so neither kind of request gets a type that lies.
 */
export function fullView<T extends OpenApiDocument>(document: T): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    const resource = Array.isArray(record.anyOf) ? resourceName(record) : undefined;
    if (resource?.sparse && Object.keys(record).length === 1) return { $ref: `#/components/schemas/${resource.name}` };
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, visit(value)]));
  };
  return { ...document, paths: visit(document.paths) as T['paths'] };
}
