import {
  builtinTypes,
  celSchemaOf,
  celSchemaOfZod,
  upstreamGroupAlias,
  upstreamGroupName,
  type CelSchema,
  type CheckedKind,
  type CustomResourceDefinition,
  type ValidatingAdmissionPolicy,
} from '../../src/api/index.js';

const label = (group: string, version: string, kind: string) => `${group ? `${upstreamGroupName(group)}/` : ''}${version}, Kind=${kind}`;

interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: unknown };
}

const versionsOf = (crd: CustomResourceDefinition): readonly CrdVersion[] => (crd.spec as { versions?: readonly CrdVersion[] }).versions ?? [];

/**
 * The kinds a policy's matchConstraints name, with their CEL schemas: built-in kinds from svc's
 * zod schemas, custom resources from their CRD's openAPIV3Schema. Wildcards (`*` groups or
 * resources) name no kind to check against, as upstream: only named resources are checked.
 */
export function matchedKinds(policy: ValidatingAdmissionPolicy, crds: readonly CustomResourceDefinition[]): CheckedKind[] {
  const out = new Map<string, CheckedKind>();
  for (const rule of policy.spec.matchConstraints.resourceRules ?? []) {
    for (const group of rule.apiGroups) {
      if (group === '*') continue;
      const svcGroup = upstreamGroupAlias(group);
      for (const entry of rule.resources) {
        const [resource, sub] = entry.split('/');
        if (resource === undefined || resource === '*' || sub !== undefined) continue;
        const anyVersion = rule.apiVersions.includes('*');
        for (const type of builtinTypes) {
          if (type.group !== svcGroup || type.resource !== resource || type.virtual) continue;
          if (!anyVersion && !rule.apiVersions.includes(type.version)) continue;
          const name = label(type.group, type.version, type.kind);
          if (!out.has(name)) out.set(name, { label: name, schema: celSchemaOfZod(type.schema) });
        }
        for (const crd of crds) {
          if (upstreamGroupAlias(crd.spec.group) !== svcGroup || crd.spec.names.plural !== resource) continue;
          for (const version of versionsOf(crd)) {
            if (version.served === false || (!anyVersion && !rule.apiVersions.includes(version.name))) continue;
            const name = label(crd.spec.group, version.name, crd.spec.names.kind);
            if (!out.has(name)) out.set(name, { label: name, schema: celSchemaOf(version.schema?.openAPIV3Schema) });
          }
        }
      }
    }
  }
  return [...out.values()];
}

/** The CEL schema of a policy's paramKind, when svc knows the kind; undefined leaves `params` dyn. */
export function paramsSchema(policy: ValidatingAdmissionPolicy, crds: readonly CustomResourceDefinition[]): CelSchema | undefined {
  const paramKind = policy.spec.paramKind;
  if (paramKind === undefined) return undefined;
  const slash = paramKind.apiVersion.lastIndexOf('/');
  const group = upstreamGroupAlias(slash < 0 ? '' : paramKind.apiVersion.slice(0, slash));
  const version = paramKind.apiVersion.slice(slash + 1);
  const type = builtinTypes.find((t) => t.group === group && t.kind === paramKind.kind && t.version === version);
  if (type) return celSchemaOfZod(type.schema);
  const crd = crds.find((c) => upstreamGroupAlias(c.spec.group) === group && c.spec.names.kind === paramKind.kind);
  const served = crd && versionsOf(crd).find((v) => v.name === version);
  return served ? celSchemaOf(served.schema?.openAPIV3Schema) : undefined;
}
