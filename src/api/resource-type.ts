import type { z } from 'zod';
import type { KubeObject } from './meta.js';
import type { FieldCause } from './status-error.js';

/** How a kind's object names are checked (Kubernetes picks one per kind). */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'pathSegment';

/** Reads the value a field selector compares, from an object of the type; absent reads as "". */
export type FieldAccessor = (object: Readonly<Record<string, unknown>>) => string | undefined;

/**
 * The fields behind a type's `scale` subresource, as JSON paths from the object's root
 * (`.spec.replicas`), the form CustomResourceDefinitions use.
 */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** Where the label selector (as a string) is read for `status.selector`; absent leaves it empty. */
  readonly labelSelectorPath?: string;
}

/**
 * A Table column of a type that declares its own (a CustomResourceDefinition's
 * `additionalPrinterColumns`): the cell is the value at `jsonPath`, rendered as `type`.
 */
export interface PrinterColumn {
  readonly name: string;
  /** integer, number, string, boolean or date. */
  readonly type: string;
  readonly format: string;
  readonly description: string;
  /** 0: always shown; 1 and above: only with `-o wide`. */
  readonly priority: number;
  /** A simple JSONPath from the object's root: `.spec.replicas`, `.status.conditions[0].type`. */
  readonly jsonPath: string;
}

/**
 * What a type adds to the generic write path, as Kubernetes' REST strategies do. Each hook returns
 * the object to go on with, or throws a StatusError; absent hooks change nothing.
 */
export interface WriteStrategy {
  /** A new object, after the schema check and before it is stored. */
  prepareForCreate?(object: KubeObject): KubeObject;
  /** A replacement for `current`, after the schema check and before it is stored. */
  prepareForUpdate?(next: KubeObject, current: KubeObject): KubeObject;
  /**
   * Checks the schema cannot express; `old` on updates. Causes make a 422 Invalid. Not run on a
   * write through `/status`, which runs `validateStatus`.
   */
  validate?(object: KubeObject, old: KubeObject | undefined): readonly FieldCause[];
  /**
   * The checks of a write through `/status`, as upstream's status strategies (ValidatePodStatusUpdate,
   * ValidateDeploymentStatusUpdate, ...) check the metadata update and the status only: the spec is
   * the stored one there, which may predate a rule `validate` has now. Absent: the schema's checks
   * of the status (and the metadata rules) are all.
   */
  validateStatus?(object: KubeObject, old: KubeObject): readonly FieldCause[];
}

/** Everything svc knows about one served resource: names, scope, verbs, schema, selectors. */
export interface ResourceType {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  /** The plural, lowercase name in URLs. */
  readonly resource: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
  /** Where the `scale` subresource reads and writes replicas (types whose subresources include `scale`). */
  readonly scale?: ScalePaths;
  readonly verbs: readonly string[];
  readonly categories?: readonly string[];
  /** Loose: fields it does not model pass through unchanged. */
  readonly schema: z.ZodType<KubeObject>;
  /** Every field a `fieldSelector` may name for this type. */
  readonly fieldSelectors: Readonly<Record<string, FieldAccessor>>;
  readonly nameValidation: NameRule;
  /**
   * A virtual type (an operation, such as a SubjectAccessReview): created only, answered by a
   * function, never stored, so it has no watch cache.
   */
  readonly virtual?: boolean;
  /** Table columns of their own (types without them get Name and Created At). */
  readonly printerColumns?: readonly PrinterColumn[];
  /** Hooks of the write path (custom resources: status split, CRD checks). */
  readonly strategy?: WriteStrategy;
  /**
   * The version objects are stored in, when the type is served in several (custom resources):
   * writes store `apiVersion` as `<group>/<storageVersion>`, reads answer in `version`.
   */
  readonly storageVersion?: string;
  /**
   * A built-in type served in a version whose objects differ from the stored ones (autoscaling/v1
   * HorizontalPodAutoscalers, stored as v2): each object is converted on its way to and from the
   * store. Without it, versions differ only in `apiVersion` (conversion None).
   */
  readonly conversion?: VersionConversion;
}

/** Converts one type's objects between the version served and `storageVersion`. */
export interface VersionConversion {
  toStorage(object: KubeObject): KubeObject;
  fromStorage(object: KubeObject): KubeObject;
}

/** The verbs of a Kubernetes object type that lacks none. */
export const ALL_VERBS: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface ResourceTypeInit {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly schema: z.ZodType<KubeObject>;
  readonly shortNames?: readonly string[];
  readonly subresources?: readonly string[];
  readonly scale?: ScalePaths;
  readonly verbs?: readonly string[];
  readonly categories?: readonly string[];
  /** Beyond `metadata.name` and (namespaced) `metadata.namespace`, which every type gets. */
  readonly fieldSelectors?: Readonly<Record<string, FieldAccessor>>;
  readonly nameValidation?: NameRule;
  readonly virtual?: boolean;
  readonly printerColumns?: readonly PrinterColumn[];
  readonly strategy?: WriteStrategy;
  readonly storageVersion?: string;
  readonly conversion?: VersionConversion;
}

/** A ResourceType with Kubernetes' defaults: `<Kind>List`, lowercase singular, every verb. */
export function defineResourceType(init: ResourceTypeInit): ResourceType {
  const { fieldSelectors = {}, ...rest } = init;
  return Object.freeze({
    listKind: `${init.kind}List`,
    singular: init.kind.toLowerCase(),
    shortNames: [],
    subresources: [],
    verbs: ALL_VERBS,
    nameValidation: 'subdomain' as const,
    ...rest,
    fieldSelectors: Object.freeze({
      'metadata.name': stringAt('metadata.name'),
      ...(init.namespaced ? { 'metadata.namespace': stringAt('metadata.namespace') } : {}),
      ...fieldSelectors,
    }),
  });
}

function valueAt(object: Readonly<Record<string, unknown>>, path: string): unknown {
  let current: unknown = object;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A string field; anything else (absent, wrong type) reads as absent. */
export function stringAt(path: string): FieldAccessor {
  return (object) => {
    const value = valueAt(object, path);
    return typeof value === 'string' ? value : undefined;
  };
}

// Go formats an unset bool or int field as its zero value, and selectors compare that text.

/** A boolean field as `true`/`false`; unset is `false`. */
export function booleanAt(path: string): FieldAccessor {
  return (object) => String(valueAt(object, path) === true);
}

/** An integer field in decimal; unset is `0`. */
export function integerAt(path: string): FieldAccessor {
  return (object) => {
    const value = valueAt(object, path);
    return typeof value === 'number' ? String(value) : '0';
  };
}
