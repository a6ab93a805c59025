/**
 * Conditional writes in the contract, from one rule (run by `npm run spec:common-responses`): a path with a PATCH
 * operation is a mutable resource. Its GET and PATCH answers (200) carry the `ETag` header (`EntityTag`), and so
 * does every create (201) whose body is the same schema as that PATCH answer; its PATCH and DELETE take the
 * `If-Match` parameter (`IfMatch`) and may answer 412 (`PreconditionFailed`). The server reads the same
 * declarations (src/http/middleware/conditional.ts), so an operation added under the rule gets the behaviour too.
 * Edits the text in place and is idempotent.
 */
import { isMap, isScalar, isSeq, parseDocument, type Pair, type YAMLMap } from 'yaml';

export const ENTITY_TAG_HEADER = '#/components/headers/EntityTag';
export const IF_MATCH_PARAMETER = '#/components/parameters/IfMatch';
export const PRECONDITION_FAILED = '#/components/responses/PreconditionFailed';

type Range = [number, number, number];
interface Edit {
  at: number;
  text: string;
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const keyOf = (pair: Pair) => (isScalar(pair.key) ? String(pair.key.value) : '');
const keyOffset = (pair: Pair) => (pair.key as { range: Range }).range[0];
const lineAfter = (text: string, end: number) => text.indexOf('\n', end - 1) + 1;
const indentOf = (text: string, pair: Pair) => ' '.repeat(keyOffset(pair) - lineStart(text, keyOffset(pair)));
const schemaRef = (response: unknown): string | undefined => {
  const schema = (response as { content?: Record<string, { schema?: { $ref?: string } }> })?.content?.[
    'application/json'
  ]?.schema;
  return schema?.$ref;
};

/** Which operations of the document the rule gives what: `${method} ${path}` keys. */
export function conditionalOperations(document: { paths: Record<string, Record<string, any>> }): {
  entityTag: Set<string>;
  ifMatch: Set<string>;
} {
  const entityTag = new Set<string>();
  const ifMatch = new Set<string>();
  const mutableSchemas = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!item.patch) continue;
    if (item.get) entityTag.add(`get ${path}`);
    entityTag.add(`patch ${path}`);
    ifMatch.add(`patch ${path}`);
    if (item.delete) ifMatch.add(`delete ${path}`);
    const answer = schemaRef(item.patch.responses?.['200']);
    if (answer) mutableSchemas.add(answer);
  }
  for (const [path, item] of Object.entries(document.paths)) {
    const created = schemaRef(item.post?.responses?.['201']);
    if (created && mutableSchemas.has(created)) entityTag.add(`post ${path}`);
  }
  return { entityTag, ifMatch };
}

/** Declares the rule's headers, parameters and 412 answers where they are missing; returns the new text. */
export function declareConditionalRequests(text: string): { text: string; changed: number } {
  const document = parseDocument(text, { keepSourceTokens: true });
  const { entityTag, ifMatch } = conditionalOperations(document.toJS() as never);
  const edits: Edit[] = [];
  for (const key of entityTag) {
    const [method, path] = key.split(' ');
    const status = method === 'post' ? '201' : '200';
    const responses = document.getIn(['paths', path, method, 'responses']) as YAMLMap;
    const pair = responses.items.find((item) => keyOf(item) === status);
    if (pair && isMap(pair.value)) edits.push(...entityTagHeader(text, pair));
  }
  for (const key of ifMatch) {
    const [method, path] = key.split(' ');
    const operation = document.getIn(['paths', path, method]) as YAMLMap;
    edits.push(...ifMatchParameter(text, operation));
    edits.push(...preconditionFailed(text, operation.get('responses') as YAMLMap));
  }
  let result = text;
  for (const { at, text: added } of edits.sort((a, b) => b.at - a.at))
    result = result.slice(0, at) + added + result.slice(at);
  return { text: result, changed: edits.length };
}

function entityTagHeader(text: string, responsePair: Pair): Edit[] {
  const response = responsePair.value as YAMLMap;
  if (response.flow) throw new Error(`Write the response at offset ${keyOffset(responsePair)} as a block map first.`);
  const first = response.items[0];
  const indent = indentOf(text, first);
  const line = (inner: string) => `${inner}ETag: { $ref: '${ENTITY_TAG_HEADER}' }\n`;
  const headers = response.items.find((pair) => keyOf(pair) === 'headers');
  if (headers && isMap(headers.value)) {
    if (headers.value.has('ETag')) return [];
    const last = headers.value.items.at(-1)!;
    return [{ at: lineAfter(text, (last.value as { range: Range }).range[2]), text: line(indentOf(text, last)) }];
  }
  const content = response.items.find((pair) => keyOf(pair) === 'content');
  const at = content
    ? lineStart(text, keyOffset(content))
    : lineAfter(text, (response.items.at(-1)!.value as { range: Range }).range[2]);
  return [{ at, text: `${indent}headers:\n${line(`${indent}  `)}` }];
}

function ifMatchParameter(text: string, operation: YAMLMap): Edit[] {
  const pairs = operation.items;
  const parameters = pairs.find((pair) => keyOf(pair) === 'parameters');
  const entry = `$ref: '${IF_MATCH_PARAMETER}'`;
  if (parameters && isSeq(parameters.value)) {
    const list = parameters.value;
    if (list.items.some((item) => isMap(item) && item.get('$ref') === IF_MATCH_PARAMETER)) return [];
    if (list.flow) throw new Error(`Write the parameters at offset ${keyOffset(parameters)} as a block list first.`);
    const last = list.items.at(-1) as { range: Range };
    const dash = lineStart(text, last.range[0]);
    const indent = text.slice(dash, text.indexOf('-', dash));
    return [{ at: lineAfter(text, last.range[2]), text: `${indent}- ${entry}\n` }];
  }
  // Before the request body or the responses, whichever comes first.
  const before = pairs.find((pair) => ['requestBody', 'responses'].includes(keyOf(pair)))!;
  const indent = indentOf(text, before);
  return [{ at: lineStart(text, keyOffset(before)), text: `${indent}parameters:\n${indent}  - ${entry}\n` }];
}

function preconditionFailed(text: string, responses: YAMLMap): Edit[] {
  const pairs = responses.items;
  if (pairs.some((pair) => keyOf(pair) === '412')) return [];
  const next = pairs.find((pair) => Number(keyOf(pair)) > 412);
  const neighbour = next ?? pairs.at(-1)!;
  const at = next ? lineStart(text, keyOffset(next)) : lineAfter(text, (neighbour.value as { range: Range }).range[1]);
  return [{ at, text: `${indentOf(text, neighbour)}'412': { $ref: '${PRECONDITION_FAILED}' }\n` }];
}
