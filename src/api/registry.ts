import { upstreamGroupAlias } from './groups.js';
import type { ResourceType } from './resource-type.js';

/** A group as discovery lists it: its versions, the preferred one first. */
export interface ApiGroupVersions {
  readonly name: string;
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

const resourceKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;
const kindKey = (group: string, kind: string) => `${group}/${kind}`;

/**
 * The resource types a server serves, indexed for routing (by group, version and plural), for
 * kind lookups and for discovery. Group names may be given the upstream way (`*.k8s.io`).
 */
export class ResourceRegistry {
  readonly #types: readonly ResourceType[];
  readonly #byResource = new Map<string, ResourceType>();
  readonly #byKind = new Map<string, ResourceType>();
  readonly #groups: readonly ApiGroupVersions[];

  /** Types are served in the order given; a group's first version is its preferred one. */
  constructor(types: Iterable<ResourceType>) {
    this.#types = Object.freeze([...types]);
    const versions = new Map<string, string[]>();
    for (const type of this.#types) {
      const key = resourceKey(type.group, type.version, type.resource);
      if (this.#byResource.has(key)) throw new Error(`resource ${key} is registered twice`);
      this.#byResource.set(key, type);
      if (!this.#byKind.has(kindKey(type.group, type.kind))) this.#byKind.set(kindKey(type.group, type.kind), type);
      const known = versions.get(type.group) ?? [];
      if (!known.includes(type.version)) known.push(type.version);
      versions.set(type.group, known);
    }
    this.#groups = Object.freeze(
      [...versions].map(([name, list]) => Object.freeze({ name, versions: Object.freeze(list), preferredVersion: list[0]! })),
    );
  }

  all(): readonly ResourceType[] {
    return this.#types;
  }

  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.#byResource.get(resourceKey(upstreamGroupAlias(group), version, resource));
  }

  /** The type of a kind in its group's preferred version (or the first version that has it). */
  byKind(group: string, kind: string): ResourceType | undefined {
    return this.#byKind.get(kindKey(upstreamGroupAlias(group), kind));
  }

  /** Every group with its versions, in registration order; the core group is named `''`. */
  groups(): readonly ApiGroupVersions[] {
    return this.#groups;
  }

  resourcesOf(group: string, version: string): readonly ResourceType[] {
    const name = upstreamGroupAlias(group);
    return this.#types.filter((type) => type.group === name && type.version === version);
  }
}
