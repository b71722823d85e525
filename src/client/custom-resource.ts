import type { z } from 'zod';
import { APIEXTENSIONS_GROUP, badRequest, kindSchema, zodToOpenApi, type CustomResourceDefinition, type ObjectMeta, type OpenApiSchema } from '../api/index.js';
import { resource, type Resource } from './resource.js';

/**
 * A custom resource defined once, from zod schemas: its object type, its CustomResourceDefinition
 * (apiextensions.k8s.io/v1, with the structural schema generated from the zod schemas) and its
 * typed client address. docs/custom-resources.md#defining-a-custom-resource-in-typescript.
 */

export interface CustomResourceNames {
  readonly plural: string;
  /** Default: the kind in lowercase. */
  readonly singular?: string;
  readonly kind: string;
  /** Default: `<kind>List`. */
  readonly listKind?: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/** A column of `kubectl get` (additionalPrinterColumns). */
export interface CustomResourcePrinterColumn {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** A simple JSONPath from the object: `.spec.size`, `.status.replicas`. */
  readonly jsonPath: string;
  readonly format?: 'int32' | 'int64' | 'float' | 'double' | 'byte' | 'date' | 'date-time' | 'password';
  readonly description?: string;
  /** 0 shows in `kubectl get`; more only with `-o wide`. */
  readonly priority?: number;
}

export interface CustomResourceInit<Spec extends z.ZodType, Status extends z.ZodType> {
  readonly group: string;
  readonly names: CustomResourceNames;
  readonly scope: 'Namespaced' | 'Cluster';
  /** The one version, served and stored. */
  readonly version: string;
  readonly spec: Spec;
  readonly status?: Status;
  readonly printerColumns?: readonly CustomResourcePrinterColumn[];
  readonly subresources?: {
    /** `/status` writes only `status`, and the object endpoint keeps the stored one. */
    readonly status?: boolean;
    readonly scale?: { readonly specReplicasPath: string; readonly statusReplicasPath: string; readonly labelSelectorPath?: string };
  };
}

/**
 * An object of a custom resource: `spec` and `status` typed by their schemas, metadata the
 * project's. `spec` may be left out when its schema accepts undefined (`.optional()`).
 */
export type CustomObject<Spec, Status> = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  status?: Status;
  [field: string]: unknown;
} & (undefined extends Spec ? { spec?: Spec } : { spec: Spec });

export interface CustomResource<T extends CustomObject<unknown, unknown>> {
  /** Marks the value for `svc crd`, which finds definitions among a module's exports. */
  readonly customResource: true;
  /** The client address: `client.get(Widget.resource, 'w1')` is a `T`. */
  readonly resource: Resource<T>;
  /** The CRD to create (`svc crd module#export` prints it as YAML). */
  readonly definition: CustomResourceDefinition;
  /** The whole object's zod schema: checks an object on the client side as the server will. */
  readonly schema: z.ZodType<T>;
  /** `apiVersion` of the objects: `<group>/<version>`. */
  readonly apiVersion: string;
  readonly kind: string;
}

/** The address of CustomResourceDefinitions themselves: `client.create(customResourceDefinitions, Widget.definition)`. */
export const customResourceDefinitions: Resource<CustomResourceDefinition> = resource<CustomResourceDefinition>({
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  resource: 'customresourcedefinitions',
  namespaced: false,
  kind: 'CustomResourceDefinition',
});

/** The object type of a custom resource: `type Widget = CustomObjectOf<typeof Widget>`. */
export type CustomObjectOf<C> = C extends CustomResource<infer T> ? T : never;

/** Defines a custom resource: see the module comment. Throws a 400 StatusError for a schema Kubernetes cannot express. */
export function defineCustomResource<Spec extends z.ZodType, Status extends z.ZodType = z.ZodNever>(
  init: CustomResourceInit<Spec, Status>,
): CustomResource<CustomObject<z.infer<Spec>, z.infer<Status>>> {
  type T = CustomObject<z.infer<Spec>, z.infer<Status>>;
  const { group, names, scope, version } = init;
  const specRequired = !init.spec.safeParse(undefined).success;
  const properties: Record<string, OpenApiSchema> = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    // Kubernetes owns metadata's schema: a CRD may say no more than that it is an object.
    metadata: { type: 'object' },
    spec: withoutNullable(zodToOpenApi(init.spec, 'spec')),
  };
  if (init.status) properties['status'] = withoutNullable(zodToOpenApi(init.status, 'status'));
  const openAPIV3Schema: OpenApiSchema = { type: 'object', properties, ...(specRequired ? { required: ['spec'] } : {}) };

  const subresources: Record<string, unknown> = {};
  if (init.subresources?.status) {
    if (!init.status) throw badRequest(`${names.plural}.${group}: the status subresource needs a status schema`);
    subresources['status'] = {};
  }
  if (init.subresources?.scale) subresources['scale'] = { ...init.subresources.scale };

  const definition: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      names: {
        plural: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        ...(names.shortNames?.length ? { shortNames: [...names.shortNames] } : {}),
        ...(names.categories?.length ? { categories: [...names.categories] } : {}),
      },
      scope,
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema },
          ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
          ...(init.printerColumns?.length ? { additionalPrinterColumns: init.printerColumns.map((column) => ({ ...column })) } : {}),
        },
      ],
    },
  };

  const schema = kindSchema({
    spec: init.spec,
    ...(init.status ? { status: init.status.optional() } : {}),
  }) as unknown as z.ZodType<T>;

  return Object.freeze({
    customResource: true as const,
    resource: resource<T>({ group, version, resource: names.plural, namespaced: scope === 'Namespaced', kind: names.kind }),
    definition,
    schema,
    apiVersion: `${group}/${version}`,
    kind: names.kind,
  });
}

/** spec and status sit directly under the root, where Kubernetes reads null as absent anyway. */
function withoutNullable(schema: OpenApiSchema): OpenApiSchema {
  const { nullable: _nullable, ...rest } = schema;
  return rest;
}

/** Whether a value (a module's export) is a defined custom resource, whichever copy of svc made it. */
export function isCustomResource(value: unknown): value is CustomResource<CustomObject<unknown, unknown>> {
  return typeof value === 'object' && value !== null && (value as { customResource?: unknown }).customResource === true && typeof (value as { definition?: unknown }).definition === 'object';
}
