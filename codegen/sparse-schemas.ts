/**
 * Sparse fields in the contract: an operation that takes `fields` answers objects with `id` and the named
 * properties only, so its 200 answer's resource (`data`, or each item of `data`) is
 * `anyOf: [X, XSparse]`, where `XSparse` has X's properties (copies of X's own property schemas, since a
 * `$ref` into another schema's `properties` breaks client generators) and requires only `id`.
 * The sparse schemas are written by `npm run spec:common-responses` (codegen/declare-sparse-schemas.ts)
 * between the markers below; `npm run lint:spec` checks both rules.
 */
import type { JsonSchema, OpenApiDocument } from '../src/shared/openapi-ajv.js';
import type { OperationSpec } from './operations.js';

export const SPARSE_BEGIN =
  '    # Sparse variants (answers with `fields`): written by `npm run spec:common-responses`, do not edit.';
export const SPARSE_END = '    # End of sparse variants.';
export const SPARSE_SUFFIX = 'Sparse';
const SCHEMA_REF = '#/components/schemas/';

/** Whether the operation takes the `fields` query parameter. */
export const takesFields = (op: OperationSpec) => op.parameters.some((p) => p.in === 'query' && p.name === 'fields');

/** Where the resource sits in a 200 answer: the `data` schema, or the `items` of an array `data`. */
export function resourceSlot(schema: JsonSchema): { slot: 'data' | 'items'; node: JsonSchema } | undefined {
  const data = (schema.properties as Record<string, JsonSchema> | undefined)?.data;
  if (!data) return undefined;
  if (data.type === 'array' && data.items) return { slot: 'items', node: data.items as JsonSchema };
  return { slot: 'data', node: data };
}

/** The resource schema name a slot refers to: `{$ref: X}` or `anyOf: [{$ref: X}, {$ref: XSparse}]`. */
export function resourceName(node: JsonSchema): { name: string; sparse: boolean } | undefined {
  const ref = (n: unknown) =>
    typeof (n as JsonSchema)?.$ref === 'string' ? String((n as JsonSchema).$ref).replace(SCHEMA_REF, '') : undefined;
  const direct = ref(node);
  if (direct) return { name: direct, sparse: false };
  const branches = node.anyOf as unknown[] | undefined;
  const [full, sparse] = (branches ?? []).map(ref);
  if (branches?.length === 2 && full && sparse === `${full}${SPARSE_SUFFIX}`) return { name: full, sparse: true };
  return undefined;
}

/** The 200 JSON schema of an operation, with an envelope `$ref` resolved one level. */
export function successSchema(
  document: OpenApiDocument,
  op: OperationSpec,
): { schema: JsonSchema; envelope?: string } | undefined {
  const raw = (document.paths[op.path]?.[op.method] as { responses?: Record<string, any> })?.responses?.['200'];
  const schema = raw?.content?.['application/json']?.schema as JsonSchema | undefined;
  if (!schema) return undefined;
  if (typeof schema.$ref === 'string') {
    const envelope = schema.$ref.replace(SCHEMA_REF, '');
    return { schema: document.components.schemas[envelope], envelope };
  }
  return { schema };
}

/** The sparse variant of a resource schema: copies of its property schemas, only `id` required. */
export function sparseSchema(name: string, schema: JsonSchema): JsonSchema {
  return {
    description: `A ${name} answered with \`fields\`: \`id\` and the requested properties only.`,
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: structuredClone(schema.properties ?? {}),
  };
}

/** The YAML text of a sparse schema, at the indentation of components.schemas (each property as a JSON flow). */
export function sparseSchemaText(name: string, schema: JsonSchema): string {
  const sparse = sparseSchema(name, schema);
  const properties = Object.entries(sparse.properties as Record<string, unknown>)
    .map(([p, property]) => `        ${p}: ${JSON.stringify(property)}\n`)
    .join('');
  return (
    `    ${name}${SPARSE_SUFFIX}:\n` +
    `      description: '${String(sparse.description)}'\n` +
    `      type: object\n      additionalProperties: false\n      required: [id]\n      properties:\n${properties}`
  );
}
