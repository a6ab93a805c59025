import type { OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { resourceName, SPARSE_SUFFIX } from './sparse-schemas.js';

/**
 * The document as the SDK's types see it: every sparse answer (`anyOf: [X, XSparse]`) is X, the answer to
 * a request without `fields`. The client narrows answers to requests that send `fields` to sparse objects
 * (sdk/src/sparse.ts), so neither kind of request gets a type that lies.
 */
export function fullView<T extends OpenApiDocument>(document: T): T {
  return resolveSparse(document, (name) => name);
}

/**
 * The document as an answer to a request with `fields` must match it: every sparse answer (`anyOf: [X,
 * XSparse]`) is XSparse (`id` and the requested properties; the response check validates answers with it).
 */
export function sparseView<T extends OpenApiDocument>(document: T): T {
  return resolveSparse(document, (name) => `${name}${SPARSE_SUFFIX}`);
}

function resolveSparse<T extends OpenApiDocument>(document: T, schemaFor: (name: string) => string): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    const resource = Array.isArray(record.anyOf) ? resourceName(record) : undefined;
    if (resource?.sparse && Object.keys(record).length === 1)
      return { $ref: `#/components/schemas/${schemaFor(resource.name)}` };
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, visit(value)]));
  };
  return { ...document, paths: visit(document.paths) as T['paths'] };
}
