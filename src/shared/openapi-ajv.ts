import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats' default export is CJS; under NodeNext its call signature sits on `.default`.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type JsonSchema = Record<string, unknown>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, unknown> };
}

const COMPONENT_REF = '#/components/schemas/';
export const COMPONENTS_ID = 'oas';

/** A deep copy of `node` whose component refs point into the `oas` schema that `createAjv` registers. */
export function rewriteComponentRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(rewriteComponentRefs) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)
        ? `${COMPONENTS_ID}#/$defs/${value.slice(COMPONENT_REF.length)}`
        : rewriteComponentRefs(value);
  }
  return copy as T;
}

/** An Ajv (JSON Schema 2020-12) instance that knows the document's component schemas and OpenAPI keywords. */
export function createAjv(document: OpenApiDocument, options: Options): Ajv2020 {
  const ajv = new Ajv2020({ strictRequired: false, allowUnionTypes: true, allErrors: true, ...options });
  addFormats(ajv);
  ajv.addVocabulary(['example', 'xml', 'externalDocs', 'discriminator']);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteComponentRefs(document.components.schemas) });
  return ajv;
}
