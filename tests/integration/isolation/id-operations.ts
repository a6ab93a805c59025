/**
 * Which operations take an identifier, and where, derived from the contract (the generated operation index and
 * openapi.yaml), never from a hand list: a new operation that takes an id is swept automatically, or makes
 * `unmapped` non-empty (and the sweep's first test fail) until its id can be resolved.
 */
import { openapiJson } from '../../../src/generated/document.js';
import { operationIndex, type OperationMeta } from '../../../src/generated/operations.js';

type Json = any;
const doc: Json = JSON.parse(openapiJson);
const deref = (node: Json): Json => {
  let current = node;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o[k], doc);
  }
  return current;
};
const refName = (node: Json): string | undefined =>
  typeof node?.$ref === 'string' ? node.$ref.split('/').pop() : undefined;

/** An identifier: a type prefix and 26 base-36 characters (`cus_01jd...`). */
export const ID_FORM = /^([a-z]+)_[0-9a-z]{26}$/;

/** `customer` -> `cus`, `shipping_zone` -> `shz`, ...: the `...Id` schemas of the contract and their prefixes. */
export const idSchemaPrefixes: Record<string, string> = Object.fromEntries(
  Object.entries(doc.components.schemas as Record<string, Json>)
    .filter(
      ([name, schema]) =>
        name.endsWith('Id') && typeof schema.pattern === 'string' && /^\^[a-z]+_/.test(schema.pattern),
    )
    .map(([name, schema]) => [
      name
        .slice(0, -2)
        .replace(/([a-z])([A-Z])/g, '$1_$2')
        .toLowerCase(),
      /^\^([a-z]+)_/.exec(schema.pattern)![1],
    ]),
);

/** The prefix a `*_id`/`*_ids` name refers to: the longest `...Id` schema its stem ends with (`destination_location_id` -> `loc`). */
function prefixForName(name: string): string | undefined {
  const stem = name.replace(/_ids?$/, '');
  const match = Object.keys(idSchemaPrefixes)
    .filter((noun) => stem === noun || stem.endsWith(`_${noun}`))
    .sort((a, b) => b.length - a.length)[0];
  return match ? idSchemaPrefixes[match] : undefined;
}

/**
 * Path parameters that are not identifiers of the tenant's resources by their example: an enum, a slug both
 * projects define (the owner id beside it is the tenant check), and a definition named by slug or id.
 */
export type Slot = { kind: 'id'; prefix: string } | { kind: 'definition' } | { kind: 'const'; value: string };
const NAMED_PATH_PARAMS: Record<string, Slot | ((shared: string) => Slot)> = {
  MetafieldOwnerTypePath: { kind: 'const', value: 'product' },
  MetafieldSlugPath: (shared) => ({ kind: 'const', value: shared }),
  MetafieldDefinitionPath: { kind: 'definition' },
  // A discount code as typed, the same in both projects (the checkout beside it is the tenant check).
  DiscountCodePath: { kind: 'const', value: 'WELCOME10' },
};

/** `*_id` body properties that hold no identifier of ours (free text in another system). */
const NOT_REFERENCES = new Set(['external_id']);

export interface PathParam {
  name: string;
  slot: Slot;
}
/** An identifier inside the request body: where (a path into the example body) and of which kind. */
export interface BodyRef {
  at: Array<string | number>;
  prefix: string;
  /** The top-level property, which a 400 must name in `field` (or in `details`). */
  field: string;
}
export interface QueryRef {
  name: string;
  prefix: string;
}
export interface IdOperation {
  op: OperationMeta;
  pathParams: PathParam[];
  /** The request body: the contract's example, with every schema `*_id(s)` property the example leaves out added. */
  body?: Json;
  bodyRefs: BodyRef[];
  queryRefs: QueryRef[];
}

function operationObject(op: OperationMeta): { item: Json; operation: Json } {
  const item = doc.paths[op.path];
  return { item, operation: item[op.method.toLowerCase()] };
}

/** The contract's example request body of an operation (a fresh copy), or undefined. */
export function exampleBodyOf(op: OperationMeta): Json | undefined {
  return bodyExample(operationObject(op).operation);
}

function bodyExample(operation: Json): Json | undefined {
  const content = deref(operation.requestBody)?.content?.['application/json'];
  if (!content) return undefined;
  if (content.example !== undefined) return structuredClone(content.example);
  const first = Object.values(content.examples ?? {})[0];
  if (first) return structuredClone(deref(first).value);
  return structuredClone(deref(content.schema)?.example);
}

/** Every property named `*_id`/`*_ids` or typed by an `...Id` schema, as (path of names, prefix or undefined). */
function schemaReferences(
  schema: Json,
  at: string[] = [],
  seen = new Set<string>(),
): Array<{ at: string[]; prefix?: string }> {
  const name = refName(schema);
  if (name) {
    if (seen.has(name)) return [];
    seen = new Set(seen).add(name);
  }
  const node = deref(schema);
  if (!node || typeof node !== 'object') return [];
  const found: Array<{ at: string[]; prefix?: string }> = [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
    for (const branch of node[key] ?? []) found.push(...schemaReferences(branch, at, seen));
  if (node.items) found.push(...schemaReferences(node.items, [...at, '[]'], seen));
  for (const [prop, propSchema] of Object.entries<Json>(node.properties ?? {})) {
    const typedBy = refName(propSchema.items ?? propSchema);
    const idSchema = typedBy?.endsWith('Id')
      ? idSchemaPrefixes[
          typedBy
            .slice(0, -2)
            .replace(/([a-z])([A-Z])/g, '$1_$2')
            .toLowerCase()
        ]
      : undefined;
    if (idSchema || /_ids?$/.test(prop)) found.push({ at: [...at, prop], prefix: idSchema ?? prefixForName(prop) });
    else found.push(...schemaReferences(propSchema, [...at, prop], seen));
  }
  return found;
}

function idsInExample(value: Json, at: Array<string | number> = []): BodyRef[] {
  if (typeof value === 'string') {
    const prefix = ID_FORM.exec(value)?.[1];
    return prefix ? [{ at, prefix, field: String(at[0]) }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => idsInExample(item, [...at, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => idsInExample(v, [...at, k]));
  return [];
}

/** Derives the id-taking operations; `unmapped` says what could not be resolved (operation, where, why). */
export function deriveIdOperations(sharedSlug: string): {
  idOperations: IdOperation[];
  unmapped: string[];
  other: OperationMeta[];
} {
  const idOperations: IdOperation[] = [];
  const unmapped: string[] = [];
  const other: OperationMeta[] = [];
  for (const op of operationIndex) {
    const { item, operation } = operationObject(op);
    const parameters: Json[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
    const pathParams: PathParam[] = [];
    const queryRefs: QueryRef[] = [];
    for (const raw of parameters) {
      const param = deref(raw);
      const example = String(param.example ?? param.schema?.example ?? '');
      if (param.in === 'path') {
        const prefix = ID_FORM.exec(example)?.[1];
        const named = NAMED_PATH_PARAMS[refName(raw) ?? ''];
        const slot = prefix ? { kind: 'id' as const, prefix } : typeof named === 'function' ? named(sharedSlug) : named;
        if (slot) pathParams.push({ name: param.name, slot });
        else if (op.auth !== 'none')
          unmapped.push(
            `${op.operationId}: path parameter ${param.name} (example ${JSON.stringify(example)}) has no id mapping`,
          );
      } else if (param.in === 'query' && /_ids?$/.test(param.name)) {
        const prefix = ID_FORM.exec(example)?.[1] ?? prefixForName(param.name);
        if (prefix) queryRefs.push({ name: param.name, prefix });
        else unmapped.push(`${op.operationId}: query parameter ${param.name} has no id mapping`);
      }
    }
    let body = bodyExample(operation);
    const bodyRefs = body === undefined ? [] : idsInExample(body);
    if (op.hasBody) {
      const schema = deref(operation.requestBody)?.content?.['application/json']?.schema;
      for (const ref of schemaReferences(schema)) {
        const name = ref.at[ref.at.length - 1];
        if (NOT_REFERENCES.has(name)) continue;
        const inExample = bodyRefs.some(
          (b) => b.at.filter((s) => typeof s === 'string').join('.') === ref.at.filter((s) => s !== '[]').join('.'),
        );
        if (inExample) continue;
        if (!ref.prefix) unmapped.push(`${op.operationId}: body property ${ref.at.join('.')} has no id mapping`);
        else if (ref.at.length !== 1)
          unmapped.push(`${op.operationId}: body property ${ref.at.join('.')} is not in the example body`);
        else {
          body = {
            ...(body ?? {}),
            [name]: name.endsWith('_ids') ? [`${ref.prefix}_${'0'.repeat(26)}`] : `${ref.prefix}_${'0'.repeat(26)}`,
          };
          bodyRefs.push(...idsInExample(body[name], [name]));
        }
      }
    }
    const takesId = pathParams.some((p) => p.slot.kind !== 'const') || bodyRefs.length > 0 || queryRefs.length > 0;
    if (takesId && op.auth !== 'none') idOperations.push({ op, pathParams, body, bodyRefs, queryRefs });
    else other.push(op);
  }
  return { idOperations, unmapped, other };
}

/**
 * The metafield value types that hold an identifier (`product_reference`, `list.variant_reference`, ...): a body
 * reference the request schema cannot show (a value's type comes from its definition), from the contract's enum.
 */
export const metafieldReferenceTypes: string[] = (doc.components.schemas.MetafieldValueType.enum as string[]).filter(
  (type) => /_reference$/.test(type),
);
