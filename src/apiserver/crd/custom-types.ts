import {
  defineResourceType,
  methodNotAllowed,
  validateObject,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
  type KubeObject,
  type PrinterColumn,
  type ResourceType,
  type WriteStrategy,
} from '../../api/index.js';
import type { KeyValue } from '../../storage/index.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { servedObjectDecoder, type ServedObject } from '../served-object.js';
import type { ServedTexts } from '../served-texts.js';
import { customResourceZod } from './schema-to-zod.js';
import { isSchemaObject } from './json-schema.js';

/** What the server needs to know of a CRD while it serves its types. */
export interface CustomTypeState {
  /** True once the CRD is being deleted: its objects may be read and deleted, not created. */
  terminating(): boolean;
}

/**
 * Kubernetes' version order (kube-aware sort): GA before beta before alpha, higher numbers first,
 * anything else last, alphabetically. The first served version is the group's preferred one.
 */
export function versionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

/** One ResourceType per served version of an (established) CRD, the preferred version first. */
export function customResourceTypes(crd: CustomResourceDefinition, state: CustomTypeState): ResourceType[] {
  const { spec } = crd;
  const storage = spec.versions.find((v) => v.storage)?.name;
  return spec.versions
    .filter((v) => v.served)
    .sort((a, b) => versionPriority(a.name, b.name))
    .map((version) => versionType(crd, version, storage ?? version.name, state));
}

function versionType(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion, storageVersion: string, state: CustomTypeState): ResourceType {
  const { spec } = crd;
  const names = spec.names;
  const status = version.subresources?.status !== undefined;
  const scale = version.subresources?.scale;
  const type = defineResourceType({
    group: spec.group,
    version: version.name,
    kind: names.kind,
    resource: names.plural,
    namespaced: spec.scope === 'Namespaced',
    schema: customResourceZod(version.schema?.openAPIV3Schema),
    shortNames: names.shortNames ?? [],
    ...(names.categories ? { categories: names.categories } : {}),
    subresources: [...(status ? ['status'] : []), ...(scale ? ['scale'] : [])],
    ...(scale
      ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}) } }
      : {}),
    ...(version.additionalPrinterColumns?.length ? { printerColumns: version.additionalPrinterColumns.map(printerColumn) } : {}),
    strategy: customResourceStrategy(names.kind, state),
    storageVersion,
  });
  return Object.freeze({ ...type, listKind: names.listKind ?? `${names.kind}List`, singular: names.singular ?? names.kind.toLowerCase() });
}

const printerColumn = (c: NonNullable<CustomResourceDefinitionVersion['additionalPrinterColumns']>[number]): PrinterColumn =>
  Object.freeze({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0, jsonPath: c.jsonPath });

/**
 * A custom type's own rule: no creates while its CRD is being deleted. What each endpoint may
 * write (status through `/status` only, when the type has that subresource) is the status/spec
 * split every type shares (subresources/write-scope.ts): a strategy that put the stored status
 * back here would also undo the writes `/status` itself makes.
 */
function customResourceStrategy(kind: string, state: CustomTypeState): WriteStrategy {
  return {
    prepareForCreate(object: KubeObject): KubeObject {
      if (state.terminating()) throw methodNotAllowed('create', kind, 'its CustomResourceDefinition is being deleted');
      return object;
    },
  };
}

/** Whether a schema declares a `default` anywhere (then reads default objects stored before it). */
export function hasDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (!isSchemaObject(schema)) return false;
  if (schema['default'] !== undefined) return true;
  return Object.entries(schema).some(([key, value]) => key !== 'enum' && key !== 'example' && hasDefaults(value));
}

const encoder = new TextEncoder();

/**
 * How one version's cache decodes stored objects: with conversion None only `apiVersion` differs
 * between versions, so it is rewritten to the version served; and with defaults in the schema,
 * objects stored before a default existed read with it (defaulting on read, as Kubernetes does).
 * Values that need neither go straight to the shared decoder.
 */
export function customResourceDecoder(type: ResourceType, defaults: boolean, servedTexts?: ServedTexts): (kv: KeyValue, revision: number) => ServedObject {
  const decode = servedObjectDecoder(type, servedTexts);
  const apiVersion = apiVersionOf(type);
  const lead = `{"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersion)},`;
  return (kv, revision) => {
    if (!defaults && Buffer.from(kv.value.buffer, kv.value.byteOffset, Math.min(kv.value.byteLength, lead.length)).toString('utf8') === lead) {
      return decode(kv, revision);
    }
    let object: ApiObject;
    try {
      object = JSON.parse(Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8')) as ApiObject;
    } catch {
      return decode(kv, revision);
    }
    if (defaults) {
      // validateObject rather than a bare parse: it keeps `__proto__` keys the schema's maps hold.
      const parsed = validateObject(type, object);
      if ('object' in parsed) object = parsed.object as ApiObject;
    }
    const { kind: _k, apiVersion: _v, metadata, ...rest } = object;
    const value = encoder.encode(JSON.stringify({ kind: type.kind, apiVersion, metadata, ...rest }));
    return decode({ ...kv, value }, revision);
  };
}
