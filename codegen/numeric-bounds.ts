/**
 * Numeric inputs and the columns behind them: every integer or number a request can carry (parameters and
 * bodies) must declare a maximum within the column it reaches (int4: 2,147,483,647; money in bigint columns:
 * 100,000,000,000, the contract's convention), so a value past it is a 400 naming the field and never a
 * failure in PostgreSQL. `npm run lint:spec` reports inputs without one.
 */
import type { JsonSchema, OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { listOperations } from './operations.js';

const SCHEMA_REF = '#/components/schemas/';
// Free-form JSON values stored in jsonb, which holds any finite JSON number (ajv refuses non-finite ones).
const JSONB_VALUES = new Set(['MetadataValue']);
const COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const NESTED = ['items', 'additionalProperties', 'contains'] as const;

function unbounded(document: OpenApiDocument, schema: unknown, where: string, seen: Set<string>, out: string[]) {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as JsonSchema;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace(SCHEMA_REF, '');
    if (seen.has(name) || JSONB_VALUES.has(name)) return;
    unbounded(document, document.components.schemas[name], where, new Set([...seen, name]), out);
    return;
  }
  const types = ([] as unknown[]).concat(node.type ?? []);
  const numeric = types.includes('integer') || types.includes('number');
  const bounded = ['maximum', 'exclusiveMaximum', 'enum', 'const'].some((key) => node[key] !== undefined);
  if (numeric && !bounded) out.push(where);
  for (const [name, value] of Object.entries((node.properties as Record<string, unknown>) ?? {}))
    unbounded(document, value, `${where}.${name}`, seen, out);
  for (const key of NESTED) if (typeof node[key] === 'object') unbounded(document, node[key], `${where}[]`, seen, out);
  for (const key of COMBINATORS)
    for (const branch of (node[key] as unknown[] | undefined) ?? []) unbounded(document, branch, where, seen, out);
}

/** Where a request can carry an integer or number without a declared maximum (`operationId query:name`, `operationId body.a.b`). */
export function unboundedNumericInputs(document: OpenApiDocument): string[] {
  const out: string[] = [];
  for (const op of listOperations(document)) {
    for (const parameter of op.parameters)
      unbounded(document, parameter.schema, `${op.operationId} ${parameter.in}:${parameter.name}`, new Set(), out);
    if (op.body) unbounded(document, op.body.schema, `${op.operationId} body`, new Set(), out);
  }
  return [...new Set(out)];
}

const INT32_MAX = 2_147_483_647;

/**
 * Integers whose width a generated client cannot tell: every `type: integer` declares `format: int32` (its
 * maximum, when it has one, fits 32 bits) or `format: int64` (money, and anything that can pass 2^31 - 1).
 */
export function integerFormatProblems(document: unknown): string[] {
  const out: string[] = [];
  (function walk(node: unknown, where: string): void {
    if (!node || typeof node !== 'object') return;
    const schema = node as JsonSchema;
    if (([] as unknown[]).concat(schema.type ?? []).includes('integer')) {
      const max = Number(schema.maximum ?? schema.exclusiveMaximum ?? NaN);
      if (schema.format !== 'int32' && schema.format !== 'int64')
        out.push(`${where}: an integer needs format int32 or int64`);
      else if (schema.format === 'int32' && max > INT32_MAX) out.push(`${where}: maximum ${max} needs format int64`);
    }
    for (const [key, value] of Object.entries(schema)) {
      if (key !== 'example' && key !== 'examples') walk(value, `${where}/${key}`);
    }
  })(document, '#');
  return out;
}
