import { z } from 'zod';

/**
 * CEL types of the matched kinds, for the status loop's type check: a kind's JSON Schema (from
 * its zod schema, or a CRD's openAPIV3Schema) as the evaluator's schema declaration — an object
 * with properties becomes a structure whose fields are checked (`object.replicas` on a Deployment
 * is an undefined field), a map `map<string, T>`, a list `list<T>`, scalars their CEL type.
 * What the evaluator cannot nest (structures inside lists and maps) and what JSON Schema leaves
 * open (unions, int-or-string, preserved unknown fields) is `dyn`: never a false warning there.
 */

export type CelSchema = string | { readonly [field: string]: CelSchema };

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_DEPTH = 32;

function scalar(node: Node): string | undefined {
  if (node['x-kubernetes-int-or-string'] === true || node['anyOf'] !== undefined || node['oneOf'] !== undefined || node['$ref'] !== undefined) return 'dyn';
  const type = Array.isArray(node['type']) ? (node['type'] as unknown[]).filter((t) => t !== 'null') : [node['type']];
  if (type.length !== 1) return 'dyn';
  switch (type[0]) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    default:
      return undefined;
  }
}

/** A node as a type name (no structure: inside lists and maps). */
function typeName(node: unknown, depth: number): string {
  if (!isNode(node) || depth > MAX_DEPTH) return 'dyn';
  const known = scalar(node);
  if (known !== undefined) return known;
  if (node['type'] === 'array') return `list<${typeName(node['items'], depth + 1)}>`;
  if (node['type'] === 'object' && !isNode(node['properties']) && isNode(node['additionalProperties'])) return `map<string, ${typeName(node['additionalProperties'], depth + 1)}>`;
  return 'dyn';
}

/** A node as a schema declaration: structures keep their fields. */
export function celSchemaOf(node: unknown, depth = 0): CelSchema {
  if (!isNode(node) || depth > MAX_DEPTH) return 'dyn';
  const properties = node['properties'];
  if (isNode(properties) && Object.keys(properties).length > 0 && node['x-kubernetes-preserve-unknown-fields'] !== true) {
    const out: Record<string, CelSchema> = {};
    for (const [field, child] of Object.entries(properties)) out[field] = celSchemaOf(child, depth + 1);
    return out;
  }
  return typeName(node, depth);
}

const zodSchemas = new WeakMap<z.ZodType, CelSchema>();

/**
 * A zod kind schema's declaration. zod's schemas are loose (fields svc does not model pass
 * through), but the check holds expressions to the fields svc knows: a field Kubernetes has that
 * svc does not model is reported too, which the docs say.
 */
export function celSchemaOfZod(schema: z.ZodType): CelSchema {
  let done = zodSchemas.get(schema);
  if (done === undefined) {
    let json: unknown;
    try {
      json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', cycles: 'ref', reused: 'inline' });
    } catch {
      json = {};
    }
    done = celSchemaOf(json);
    zodSchemas.set(schema, done);
  }
  return done;
}
