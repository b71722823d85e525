import { badRequest, type Node, type Taint } from '../../api/index.js';
import type { HostInfo } from './host.js';
import type { NodeStatusOptions } from './options.js';

/** The node's name: `--hostname-override`, else the hostname, lower-cased (a Node name is a DNS name). */
export function nodeName(options: Pick<NodeStatusOptions, 'hostnameOverride'>, host: Pick<HostInfo, 'hostname'>): string {
  const name = (options.hostnameOverride?.trim() || host.hostname()).toLowerCase();
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name) || name.length > 253) {
    throw badRequest(`the node name ${JSON.stringify(name)} is not a DNS subdomain; set --hostname-override`);
  }
  return name;
}

const EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/** Parses `--register-with-taints` items: `key=value:effect` or `key:effect`. */
export function parseTaints(items: readonly string[]): Taint[] {
  return items.map((item) => {
    const colon = item.lastIndexOf(':');
    const effect = colon < 0 ? '' : item.slice(colon + 1);
    const keyValue = colon < 0 ? item : item.slice(0, colon);
    const eq = keyValue.indexOf('=');
    const key = eq < 0 ? keyValue : keyValue.slice(0, eq);
    if (key === '' || !EFFECTS.has(effect)) {
      throw badRequest(`--register-with-taints: ${JSON.stringify(item)} is not <key>=<value>:<effect> with effect NoSchedule, PreferNoSchedule or NoExecute`);
    }
    return { key, ...(eq < 0 ? {} : { value: keyValue.slice(eq + 1) }), effect: effect as Taint['effect'] };
  });
}

/** The labels the node gives itself: the well-known three, then `--node-labels` (which may override them). */
export function nodeLabels(name: string, options: Pick<NodeStatusOptions, 'nodeLabels'>, host: Pick<HostInfo, 'os' | 'arch'>): Record<string, string> {
  return { 'svc.io/hostname': name, 'svc.io/os': host.os, 'svc.io/arch': host.arch, ...options.nodeLabels };
}

/**
 * The Node the agent creates: metadata and spec; the status follows through the status
 * subresource. `annotations` are the agent's own (a hollow node's simulated-runtime notice).
 */
export function newNode(name: string, labels: Record<string, string>, taints: readonly Taint[], providerId: string | undefined, annotations?: Readonly<Record<string, string>>): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}) },
    spec: { ...(taints.length > 0 ? { taints: [...taints] } : {}), ...(providerId ? { providerID: providerId } : {}) },
  };
}

const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;

/**
 * What an existing Node lacks of what the agent registers: a merge patch, or undefined when it
 * has it all. Labels and annotations the agent sets are brought to its values and others are
 * kept; taints the agent registers are added if missing (never removed: an administrator or
 * controller may have changed the rest); providerID is set only while empty (it cannot change once set).
 */
export function reconcilePatch(existing: Node, wanted: Node): Record<string, unknown> | undefined {
  const patch: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> } = {};
  const labels = existing.metadata.labels ?? {};
  const changed = Object.entries(wanted.metadata.labels ?? {}).filter(([k, v]) => labels[k] !== v);
  if (changed.length > 0) patch.metadata = { labels: Object.fromEntries(changed) };
  const annotations = existing.metadata.annotations ?? {};
  const changedAnnotations = Object.entries(wanted.metadata.annotations ?? {}).filter(([k, v]) => annotations[k] !== v);
  if (changedAnnotations.length > 0) patch.metadata = { ...patch.metadata, annotations: Object.fromEntries(changedAnnotations) };
  const taints = existing.spec?.taints ?? [];
  const missing = (wanted.spec?.taints ?? []).filter((t) => !taints.some((e) => sameTaint(e, t)));
  if (missing.length > 0) patch.spec = { taints: [...taints, ...missing] };
  if (wanted.spec?.providerID && !existing.spec?.providerID) patch.spec = { ...patch.spec, providerID: wanted.spec.providerID };
  return patch.metadata || patch.spec ? patch : undefined;
}
