/**
 * Part of `npm run spec:common-responses`: makes the 200 answer of every operation that takes `fields`
 * accept sparse objects (`anyOf: [X, XSparse]`, see codegen/sparse-schemas.ts) and (re)writes the sparse
 * schemas between their markers in components.schemas. Edits the text in place and is idempotent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';
import type { OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { listOperations } from './operations.js';
import {
  resourceName,
  resourceSlot,
  SPARSE_BEGIN,
  SPARSE_END,
  SPARSE_SUFFIX,
  sparseSchemaText,
  successSchema,
  takesFields,
} from './sparse-schemas.js';

const file = path.resolve(import.meta.dirname, '../openapi.yaml');
const REF = '#/components/schemas/';

type Range = [number, number, number];
interface Edit {
  at: number;
  end: number;
  text: string;
}

const rangeOf = (node: unknown) => (node as { range: Range }).range;
const keyOf = (pair: Pair) => (isScalar(pair.key) ? String(pair.key.value) : '');
const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const anyOfFlow = (name: string) => `{ anyOf: [{ $ref: '${REF}${name}' }, { $ref: '${REF}${name}${SPARSE_SUFFIX}' }] }`;

function pairIn(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => keyOf(pair) === key);
}

/** The edits that make one operation's 200 answer accept sparse objects, and the resource it names. */
function responseEdits(
  text: string,
  yamlDoc: ReturnType<typeof parseDocument>,
  document: OpenApiDocument,
  op: ReturnType<typeof listOperations>[number],
): { edits: Edit[]; name?: string } {
  const success = successSchema(document, op);
  const slot = success && resourceSlot(success.schema);
  const resource = slot && resourceName(slot.node);
  if (!success || !slot || !resource)
    throw new Error(
      `${op.operationId} takes fields, but its 200 answer has no {data: X} or {data: [X]} to make sparse.`,
    );
  if (resource.sparse) return { edits: [], name: resource.name };
  const content = yamlDoc.getIn(
    ['paths', op.path, op.method, 'responses', '200', 'content', 'application/json'],
    true,
  ) as YAMLMap;
  const schemaPair = pairIn(content, 'schema')!;
  if (success.envelope) {
    // `schema: { $ref: XEnvelope }` (shared with writes, which answer the full object) becomes an inline envelope.
    const keyAt = rangeOf(schemaPair.key)[0];
    const indent = ' '.repeat(keyAt - lineStart(text, keyAt) + 2);
    const block = [
      '',
      `${indent}type: object`,
      `${indent}additionalProperties: false`,
      `${indent}required: [data]`,
      `${indent}properties:`,
      `${indent}  data: ${anyOfFlow(resource.name)}`,
    ].join('\n');
    const [start, end] = rangeOf(schemaPair.value);
    const space = text[start - 1] === ' ' ? 1 : 0;
    return { edits: [{ at: start - space, end, text: block }], name: resource.name };
  }
  const schemaNode = schemaPair.value as YAMLMap;
  const data = pairIn(schemaNode.get('properties', true) as unknown as YAMLMap, 'data')!.value as YAMLMap;
  const target = slot.slot === 'items' ? data.get('items', true) : data;
  const [start, end] = rangeOf(target);
  return { edits: [{ at: start, end, text: anyOfFlow(resource.name) }], name: resource.name };
}

/** The edit that writes the sparse schemas block (replacing the previous one, or after Pagination). */
function blockEdit(
  text: string,
  yamlDoc: ReturnType<typeof parseDocument>,
  document: OpenApiDocument,
  names: string[],
): Edit {
  const block = [
    SPARSE_BEGIN + '\n',
    ...names.map((name) => sparseSchemaText(name, document.components.schemas[name])),
    SPARSE_END + '\n',
  ].join('');
  const begin = text.indexOf(SPARSE_BEGIN);
  if (begin >= 0) {
    const end = text.indexOf('\n', text.indexOf(SPARSE_END, begin)) + 1;
    return { at: begin, end, text: block };
  }
  const schemas = yamlDoc.getIn(['components', 'schemas'], true) as YAMLMap;
  const pairs = schemas.items;
  const after = pairs.findIndex((pair) => keyOf(pair) === 'Pagination');
  const next = pairs[after + 1];
  const at = next ? lineStart(text, rangeOf(next.key)[0]) : text.length;
  return { at, end: at, text: block + (next ? '\n' : '') };
}

function main(): void {
  const text = readFileSync(file, 'utf8');
  const yamlDoc = parseDocument(text, { keepSourceTokens: true });
  const document = yamlDoc.toJS() as OpenApiDocument;
  const edits: Edit[] = [];
  const names = new Set<string>();
  for (const op of listOperations(document).filter(takesFields)) {
    const { edits: opEdits, name } = responseEdits(text, yamlDoc, document, op);
    edits.push(...opEdits);
    if (name) names.add(name);
  }
  if (!isMap(yamlDoc.getIn(['components', 'schemas'], true))) throw new Error('openapi.yaml has no components.schemas');
  const block = blockEdit(text, yamlDoc, document, [...names].sort());
  const unchanged = block.end > block.at && text.slice(block.at, block.end) === block.text;
  if (!unchanged) edits.push(block);

  let result = text;
  for (const edit of edits.sort((a, b) => b.at - a.at))
    result = result.slice(0, edit.at) + edit.text + result.slice(edit.end);
  writeFileSync(file, result);
  console.log(
    edits.length > 0
      ? `Declared sparse answers in ${edits.length} place(s) of openapi.yaml.`
      : 'openapi.yaml already declares its sparse answers.',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
