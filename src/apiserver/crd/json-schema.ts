/**
 * An OpenAPI v3 schema node as a CustomResourceDefinition carries it (Kubernetes' JSONSchemaProps),
 * read field by field: the CRD kind's zod schema keeps it as an open object, and
 * `structural-schema.ts` checks every keyword before anything here is trusted.
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

export const isSchemaObject = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const stringOf = (node: JsonSchema, key: string): string | undefined =>
  typeof node[key] === 'string' ? (node[key] as string) : undefined;

export const numberOf = (node: JsonSchema, key: string): number | undefined =>
  typeof node[key] === 'number' ? (node[key] as number) : undefined;

export const flag = (node: JsonSchema, key: string): boolean => node[key] === true;

/** `properties`, in declaration order. */
export const propertiesOf = (node: JsonSchema): [string, JsonSchema][] =>
  isSchemaObject(node['properties'])
    ? Object.entries(node['properties']).filter((entry): entry is [string, JsonSchema] => isSchemaObject(entry[1]))
    : [];

/** The keywords of JSONSchemaProps svc reads; any other is refused, so that none is silently ignored. */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'default',
  'example',
  'externalDocs',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'enum',
  'required',
  'items',
  'properties',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Keywords a structural schema may not use (Kubernetes refuses them too). */
export const FORBIDDEN_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref',
  '$schema',
  'id',
  'definitions',
  'dependencies',
  'patternProperties',
  'additionalItems',
]);

export const SCHEMA_TYPES: ReadonlySet<string> = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
