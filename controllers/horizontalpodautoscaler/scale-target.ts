import { groupVersionResources, resource, type Client, type GroupVersionEntry, type Resource } from '../../src/client/index.js';

/**
 * The resource behind an autoscaler's `scaleTargetRef` (`apiVersion` + `kind`), found through
 * discovery as upstream's REST mapper finds it, so that any kind with a `scale` subresource works
 * (Deployments, ReplicaSets, StatefulSets, ReplicationControllers, custom resources that declare
 * one) and a kind without one is named as such. A group-version's resource list is read at most
 * once per `ttlMs`, so a CRD added later is found.
 */

export interface ScaleTarget {
  readonly resource: Resource;
  readonly kind: string;
}

/** Why a target cannot be scaled: the message goes into AbleToScale=False. */
export class ScaleTargetError extends Error {}

export class ScaleTargets {
  readonly #lists = new Map<string, { readonly atMs: number; readonly entries: Promise<readonly GroupVersionEntry[] | undefined> }>();

  constructor(
    private readonly client: Client,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** The target's resource; rejects with a ScaleTargetError when it has none or cannot scale. */
  async resolve(apiVersion: string | undefined, kind: string): Promise<ScaleTarget> {
    const [group, version] = splitApiVersion(apiVersion ?? '');
    const entries = await this.#entries(group, version);
    const groupText = JSON.stringify(group);
    if (!entries) throw new ScaleTargetError(`no matches for kind ${JSON.stringify(kind)} in group ${groupText}: ${apiVersion ?? 'v1'} is not served`);
    const entry = entries.find((e) => e.kind === kind && !e.name.includes('/'));
    if (!entry) throw new ScaleTargetError(`no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion ?? 'v1')}`);
    if (!entries.some((e) => e.name === `${entry.name}/scale`)) {
      throw new ScaleTargetError(`${kind} (${group ? `${entry.name}.${group}` : entry.name}) has no scale subresource: it cannot be autoscaled`);
    }
    return { kind, resource: resource({ group, version, resource: entry.name, namespaced: entry.namespaced, kind }) };
  }

  #entries(group: string, version: string): Promise<readonly GroupVersionEntry[] | undefined> {
    const key = `${group}/${version}`;
    const cached = this.#lists.get(key);
    if (cached && this.now() - cached.atMs < this.ttlMs) return cached.entries;
    const entries = groupVersionResources(this.client, group, version).catch((error: unknown) => {
      // Not served is an answer (undefined); anything else (the server away) is retried on the next sync.
      this.#lists.delete(key);
      throw error;
    });
    this.#lists.set(key, { atMs: this.now(), entries });
    return entries;
  }
}

/** `apps/v1` → [apps, v1]; `v1` → ['', v1]. */
function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion || 'v1'] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
