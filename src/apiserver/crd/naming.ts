import type { CustomResourceDefinition, ResourceRegistry } from '../../api/index.js';

/** A CRD's names with their defaults filled in: what `status.acceptedNames` holds once accepted. */
export interface AcceptedNames {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories?: readonly string[];
}

export function namesOf(crd: CustomResourceDefinition): AcceptedNames {
  const n = crd.spec.names;
  return {
    plural: n.plural,
    singular: n.singular || n.kind.toLowerCase(),
    kind: n.kind,
    listKind: n.listKind || `${n.kind}List`,
    shortNames: n.shortNames ?? [],
    ...(n.categories ? { categories: n.categories } : {}),
  };
}

/** Why a CRD's names were not accepted, as condition reason and message; undefined when they are. */
export interface NameConflict {
  readonly reason: 'PluralConflict' | 'SingularConflict' | 'ShortNamesConflict' | 'KindConflict' | 'ListKindConflict';
  readonly message: string;
}

/**
 * Kubernetes' naming controller: a CRD's names are accepted unless another CRD of the same group
 * already holds one of them (plural, singular and short names share one space, kinds and list
 * kinds another), or a type the server serves otherwise (a built-in) has that resource or kind.
 * `others` are the accepted names of the group's other CRDs.
 */
export function nameConflict(
  crd: CustomResourceDefinition,
  others: readonly AcceptedNames[],
  registry: ResourceRegistry,
  ownTypes: ReadonlySet<unknown>,
): NameConflict | undefined {
  const names = namesOf(crd);
  const group = crd.spec.group;
  const resources = new Set(others.flatMap((o) => [o.plural, o.singular, ...o.shortNames]));
  const kinds = new Set(others.flatMap((o) => [o.kind, o.listKind]));
  for (const type of registry.all()) {
    if (type.group !== group || ownTypes.has(type)) continue;
    resources.add(type.resource);
    kinds.add(type.kind);
    kinds.add(type.listKind);
  }
  if (resources.has(names.plural)) return { reason: 'PluralConflict', message: `"${names.plural}" is already in use` };
  if (resources.has(names.singular)) return { reason: 'SingularConflict', message: `"${names.singular}" is already in use` };
  const short = names.shortNames.find((s) => resources.has(s));
  if (short !== undefined) return { reason: 'ShortNamesConflict', message: `"${short}" is already in use` };
  if (kinds.has(names.kind)) return { reason: 'KindConflict', message: `"${names.kind}" is already in use` };
  if (kinds.has(names.listKind)) return { reason: 'ListKindConflict', message: `"${names.listKind}" is already in use` };
  return undefined;
}
