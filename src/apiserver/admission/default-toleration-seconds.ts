import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionPlugin } from './plugin.js';

/** kube-apiserver's defaults (`--default-not-ready-toleration-seconds`, `--default-unreachable-toleration-seconds`). */
export const DEFAULT_NOT_READY_TOLERATION_SECONDS = 300;
export const DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300;
// The node lifecycle controller's taint keys: Kubernetes' names, as svc's taints keep them.
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Does a toleration already cover the NoExecute taint `key` (its key, or every key; NoExecute or every effect)? */
const covers = (t: Toleration, key: string) => (t.key === key || ((t.key ?? '') === '' && t.operator === 'Exists')) && ((t.effect ?? '') === '' || t.effect === 'NoExecute');

/**
 * DefaultTolerationSeconds: a new pod that tolerates neither `node.kubernetes.io/not-ready` nor
 * `node.kubernetes.io/unreachable` with NoExecute gets a toleration of each for 300 s, so that it
 * stays on a node that fails for five minutes before the taint-eviction loop evicts it, as
 * Kubernetes does. A pod that already tolerates one keeps its own for that one.
 */
export function defaultTolerationSeconds(): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    appliesTo: ({ operation, type, subresource }) => operation === 'CREATE' && subresource === '' && type.group === '' && type.resource === 'pods',
    admit(attrs: AdmissionAttributes) {
      const pod = attrs.object;
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.type.group !== '' || attrs.type.resource !== 'pods' || !pod) return pod;
      const spec = (pod['spec'] ?? {}) as { tolerations?: Toleration[] } & Record<string, unknown>;
      const tolerations = spec.tolerations ?? [];
      const added: Toleration[] = [];
      if (!tolerations.some((t) => covers(t, NOT_READY))) added.push({ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_NOT_READY_TOLERATION_SECONDS });
      if (!tolerations.some((t) => covers(t, UNREACHABLE))) added.push({ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_UNREACHABLE_TOLERATION_SECONDS });
      if (added.length === 0) return pod;
      return { ...pod, spec: { ...spec, tolerations: [...tolerations, ...added] } } as ApiObject;
    },
  };
}
