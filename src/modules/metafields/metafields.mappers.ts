import type { components } from '../../generated/openapi.js';
import type { MetafieldDefinition } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type DefinitionResource = Schemas['MetafieldDefinition'];
export type ValueObject = Schemas['MetafieldValueObject'];
export type MetafieldValues = Schemas['MetafieldValues'];

/** The definition fields a value object shows. */
export type DefinitionSummary = Pick<MetafieldDefinition, 'slug' | 'label' | 'valueType' | 'choices'>;

/** A definition as the API shows it (no choices: null). */
export function toDefinitionResource(definition: MetafieldDefinition): DefinitionResource {
  return {
    id: definition.id,
    key: definition.key,
    slug: definition.slug,
    label: definition.label,
    description: definition.description,
    owner_type: definition.ownerType as DefinitionResource['owner_type'],
    value_type: definition.valueType as DefinitionResource['value_type'],
    choices: definition.choices.length > 0 ? definition.choices : null,
    position: definition.position,
    required: definition.required,
    storefront_visible: definition.storefrontVisible,
    archived: definition.archivedAt !== null,
    created_at: definition.createdAt.toISOString(),
    updated_at: definition.updatedAt.toISOString(),
  };
}

/** A stored value with its definition's slug, label, type and choices. */
export function toValueObject(definition: DefinitionSummary, value: unknown): ValueObject {
  return {
    slug: definition.slug,
    label: definition.label,
    type: definition.valueType,
    choices: definition.choices.length > 0 ? definition.choices : null,
    value,
  } as ValueObject;
}
