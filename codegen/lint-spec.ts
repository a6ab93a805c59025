/**
 * `npm run lint:spec`: openapi.yaml is a valid OpenAPI 3.1 document, every operation is documented the
 * way this project requires, and every example matches the schema it illustrates.
 */
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createAjv, rewriteComponentRefs, type JsonSchema, type OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { countsAgainstLimits, RATE_LIMIT_HEADERS } from './declare-common-responses.js';
import { integerFormatProblems, unboundedNumericInputs } from './numeric-bounds.js';
import { listOperations } from './operations.js';
import {
  resourceName,
  resourceSlot,
  SPARSE_SUFFIX,
  sparseSchema,
  successSchema,
  takesFields,
} from './sparse-schemas.js';

const file = path.resolve(import.meta.dirname, '../openapi.yaml');
const CORS_HEADERS = ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers'];
const problems: string[] = [];

await SwaggerParser.validate(file).catch((error: Error) => problems.push(`invalid OpenAPI document: ${error.message}`));
const document = (await SwaggerParser.parse(file)) as unknown as OpenApiDocument & {
  tags: Array<{ name: string }>;
  components: { responses: Record<string, any> };
};
const ajv = createAjv(document, { strict: false });
const tags = new Set(document.tags.map((tag) => tag.name));

function checkExample(where: string, schema: JsonSchema | undefined, example: unknown): void {
  if (!schema || example === undefined) return;
  const validate = ajv.compile(rewriteComponentRefs(schema));
  if (!validate(example)) {
    problems.push(`${where}: example does not match its schema: ${ajv.errorsText(validate.errors)}`);
  }
}

function resolveResponse(response: any): any {
  return response?.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
}

const ids = new Set<string>();
for (const op of listOperations(document)) {
  const raw = (document.paths[op.path] as any)[op.method];
  const where = `${op.method.toUpperCase()} ${op.path}`;
  if (!/^[a-z][A-Za-z0-9]+$/.test(op.operationId ?? '')) problems.push(`${where}: operationId must be camelCase`);
  if (ids.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
  ids.add(op.operationId);
  if (!raw.summary) problems.push(`${where}: needs a summary`);
  if (!raw.description) problems.push(`${where}: needs a description`);
  if (raw.tags?.length !== 1 || !tags.has(raw.tags[0])) problems.push(`${where}: needs exactly one declared tag`);
  const statuses = Object.keys(raw.responses);
  if (!statuses.some((s) => s.startsWith('2'))) problems.push(`${where}: declares no success response`);
  if (!statuses.includes('500')) problems.push(`${where}: must declare 500`);
  if (!statuses.includes('503'))
    problems.push(`${where}: must declare 503 (the database does not answer; run npm run spec:common-responses)`);
  if (op.auth !== 'none' && !statuses.includes('401')) problems.push(`${where}: secured operations must declare 401`);
  if (['secret', 'publishable', 'publishableHeader'].includes(op.auth) && !statuses.includes('403')) {
    problems.push(`${where}: key-authenticated operations must declare 403`);
  }
  if (countsAgainstLimits(op.auth)) {
    if (!statuses.includes('429'))
      problems.push(`${where}: counts against the rate limit, so must declare 429 (run npm run spec:common-responses)`);
    for (const [status, response] of Object.entries<any>(raw.responses)) {
      const headers = resolveResponse(response)?.headers ?? {};
      if (status !== '429' && status !== '503' && !Object.keys(RATE_LIMIT_HEADERS).every((name) => headers[name])) {
        problems.push(`${where} ${status}: must declare the X-RateLimit-* headers (run npm run spec:common-responses)`);
      }
    }
  }
  if (op.auth === 'publishable' || op.auth === 'customer') {
    // Browser operations: src/http/middleware/cors.ts sets these on every answer, errors included.
    for (const [status, response] of Object.entries<any>(raw.responses)) {
      const headers = resolveResponse(response)?.headers ?? {};
      if (!CORS_HEADERS.every((name) => headers[name]))
        problems.push(`${where} ${status}: a browser operation's answer must declare ${CORS_HEADERS.join(' and ')}`);
    }
  }
  if (!statuses.includes('400'))
    problems.push(
      `${where}: must declare 400 (unknown query parameters are refused everywhere; run npm run spec:common-responses)`,
    );
  if (op.idempotent && !statuses.includes('409'))
    problems.push(`${where}: create operations must declare 409 (Idempotency-Key conflicts)`);
  if (op.idempotent && !op.parameters.some((p) => p.name === 'Idempotency-Key'))
    problems.push(`${where}: create operations take Idempotency-Key`);

  if (takesFields(op)) {
    const success = successSchema(document, op);
    const slot = success && resourceSlot(success.schema);
    const resource = slot && resourceName(slot.node);
    if (!resource?.sparse)
      problems.push(
        `${where}: takes fields, so its 200 resource must be anyOf [X, X${SPARSE_SUFFIX}] (run npm run spec:common-responses)`,
      );
    else if (
      JSON.stringify(document.components.schemas[resource.name + SPARSE_SUFFIX]) !==
      JSON.stringify(sparseSchema(resource.name, document.components.schemas[resource.name]))
    ) {
      problems.push(
        `components.schemas.${resource.name}${SPARSE_SUFFIX}: stale, not the sparse variant of ${resource.name} (run npm run spec:common-responses)`,
      );
    }
  }
  const body = raw.requestBody?.content?.['application/json'];
  if (body && body.example === undefined) problems.push(`${where}: request body needs an example`);
  checkExample(`${where} request`, body?.schema, body?.example);
  for (const [status, response] of Object.entries(raw.responses)) {
    for (const [media, content] of Object.entries<any>(resolveResponse(response)?.content ?? {})) {
      const examples =
        content.example !== undefined
          ? [content.example]
          : Object.values<any>(content.examples ?? {}).map((e) => e.value);
      if (examples.length === 0) problems.push(`${where} ${status} ${media}: needs an example`);
      for (const example of examples) checkExample(`${where} ${status}`, content.schema, example);
    }
  }
}
for (const [name, schema] of Object.entries(document.components.schemas)) {
  checkExample(
    `components.schemas.${name}`,
    { $ref: `#/components/schemas/${name}` },
    (schema as { example?: unknown }).example,
  );
}

for (const where of unboundedNumericInputs(document))
  problems.push(`${where}: a numeric input needs a maximum within its column (codegen/numeric-bounds.ts)`);
problems.push(...integerFormatProblems(document));

// A null-valued key in a schema is almost always an unquoted flow-mapping description with a comma in it
// (`{ description: Cents, inclusive. }` parses as `description: Cents` plus a key `inclusive.`).
(function findNullKeys(node: unknown, where: string): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    const at = `${where}/${key}`;
    if (value === null && !/(example|default|const|enum)/.test(at))
      problems.push(`${at}: null-valued key (quote the description above it?)`);
    findNullKeys(value, at);
  }
})(document, '#');

if (problems.length > 0) {
  console.error(`openapi.yaml has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`openapi.yaml is valid: ${ids.size} operations, every example matches its schema.`);
