import { upstreamGroupAlias } from './groups.js';
import type { ResourceType } from './resource-type.js';

/** A group as discovery lists it: its versions, the preferred one first. */
export interface ApiGroupVersions {
  readonly name: string;
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

/** What one `add` or `remove` changed, told to every listener after the registry changed. */
export interface RegistryChange {
  readonly added: readonly ResourceType[];
  readonly removed: readonly ResourceType[];
}

const resourceKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;
const kindKey = (group: string, kind: string) => `${group}/${kind}`;

/**
 * The resource types a server serves, indexed for routing (by group, version and plural), for
 * kind lookups and for discovery. Group names may be given the upstream way (`*.k8s.io`).
 *
 * Types may be added and removed while the server runs (custom resources): the indexes are
 * rebuilt on each change, which is rare, so that a lookup stays one map read.
 */
export class ResourceRegistry {
  #types: readonly ResourceType[] = [];
  #byResource = new Map<string, ResourceType>();
  #byKind = new Map<string, ResourceType>();
  #groups: readonly ApiGroupVersions[] = [];
  readonly #listeners = new Set<(change: RegistryChange) => void>();

  /** Types are served in the order given; a group's first version is its preferred one. */
  constructor(types: Iterable<ResourceType>) {
    this.#index([...types]);
  }

  #index(types: readonly ResourceType[]): void {
    const byResource = new Map<string, ResourceType>();
    const byKind = new Map<string, ResourceType>();
    const versions = new Map<string, string[]>();
    for (const type of types) {
      const key = resourceKey(type.group, type.version, type.resource);
      if (byResource.has(key)) throw new Error(`resource ${key} is registered twice`);
      byResource.set(key, type);
      if (!byKind.has(kindKey(type.group, type.kind))) byKind.set(kindKey(type.group, type.kind), type);
      const known = versions.get(type.group) ?? [];
      if (!known.includes(type.version)) known.push(type.version);
      versions.set(type.group, known);
    }
    this.#types = Object.freeze([...types]);
    this.#byResource = byResource;
    this.#byKind = byKind;
    this.#groups = Object.freeze(
      [...versions].map(([name, list]) => Object.freeze({ name, versions: Object.freeze(list), preferredVersion: list[0]! })),
    );
  }

  /**
   * Serves more types, after the ones there (a group's preferred version stays the first one
   * registered). A type whose group, version and plural are taken is an error, and nothing changes.
   */
  add(types: readonly ResourceType[]): void {
    if (types.length === 0) return;
    this.#index([...this.#types, ...types]);
    this.#notify({ added: types, removed: [] });
  }

  /** Stops serving these types (the very objects `add` was given). */
  remove(types: readonly ResourceType[]): void {
    const gone = new Set(types);
    const removed = this.#types.filter((type) => gone.has(type));
    if (removed.length === 0) return;
    this.#index(this.#types.filter((type) => !gone.has(type)));
    this.#notify({ added: [], removed });
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(change: RegistryChange): void {
    for (const listener of this.#listeners) listener(change);
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
