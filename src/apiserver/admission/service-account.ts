import { randomInt } from 'node:crypto';
import { forbidden, CONFIG_MIRROR_ANNOTATIONS, SERVICE_ACCOUNT_MOUNT_PATH } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionPlugin } from './plugin.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Where in-cluster clients (client-go, the Python and JavaScript clients) look for their credentials. */
/** The ConfigMap of every namespace that holds the cluster's CA (`ca.crt`), as in-cluster clients expect it. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const API_ACCESS_VOLUME_PREFIX = 'svc-api-access-';
/** A bound token's lifetime as kube projects it (an hour, plus slack for the kubelet's refresh). */
const TOKEN_EXPIRATION_SECONDS = 3607;
// kube's random-name alphabet: no vowels (no words), no look-alikes.
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
// A mirror pod (svc's node agent writes `svc.io/config.mirror`) stands for a static pod that runs without API credentials.

type Container = { name?: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] } & Record<string, unknown>;
type PodSpec = {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name: string }[];
  containers?: Container[];
  initContainers?: Container[];
} & Record<string, unknown>;

const suffix = () => Array.from({ length: 5 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/** The projected volume that gives a pod its API credentials: a bound token, the CA, its namespace. */
function apiAccessVolume(name: string) {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

const mounted = (containers: readonly Container[] | undefined) =>
  (containers ?? []).some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH));

/**
 * ServiceAccount: a new pod runs as `spec.serviceAccountName` (default `default`), which must
 * exist (403 otherwise), and unless the pod or its account opt out of automounting, gets the
 * API credentials volume mounted read-only into every container at the in-cluster path.
 */
export function serviceAccountPlugin(env: AdmissionEnv): AdmissionPlugin {
  const saType = env.registry.lookup('', 'v1', 'serviceaccounts')!;
  const lookup = async (namespace: string, name: string) =>
    env.objects.get(saType, namespace, name) ?? (await env.reader.get(saType, namespace, name));
  return {
    name: 'ServiceAccount',
    appliesTo: ({ operation, type, subresource }) => operation === 'CREATE' && subresource === '' && type.group === '' && type.resource === 'pods',
    async admit(attrs: AdmissionAttributes) {
      const pod = attrs.object;
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.type.group !== '' || attrs.type.resource !== 'pods' || !pod) return pod;
      if (CONFIG_MIRROR_ANNOTATIONS.some((key) => pod.metadata.annotations?.[key] !== undefined)) return pod;
      const spec = (pod['spec'] ?? {}) as PodSpec;
      const accountName = spec.serviceAccountName || spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT;
      const account = await lookup(attrs.namespace, accountName);
      if (!account) {
        throw forbidden(
          { group: '', resource: 'pods' },
          attrs.name,
          `error looking up service account ${attrs.namespace}/${accountName}: serviceaccount "${accountName}" not found`,
        );
      }
      const next: PodSpec = { ...spec, serviceAccountName: accountName };
      const automount = spec.automountServiceAccountToken ?? (account['automountServiceAccountToken'] as boolean | undefined) ?? true;
      const mount = automount && !mounted(spec.containers) && !mounted(spec.initContainers);
      // Unchanged, the pod is handed on as it came: the chain then need not validate it again.
      if (!mount && spec.serviceAccountName === accountName) return pod;
      if (mount) {
        const taken = new Set((spec.volumes ?? []).map((v) => v.name));
        let volume = API_ACCESS_VOLUME_PREFIX + suffix();
        while (taken.has(volume)) volume = API_ACCESS_VOLUME_PREFIX + suffix();
        const volumeMount = { name: volume, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH };
        const withMount = (c: Container): Container => ({ ...c, volumeMounts: [...(c.volumeMounts ?? []), volumeMount] });
        next.volumes = [...(spec.volumes ?? []), apiAccessVolume(volume)];
        next.containers = (spec.containers ?? []).map(withMount);
        if (spec.initContainers) next.initContainers = spec.initContainers.map(withMount);
      }
      return { ...pod, spec: next } as ApiObject;
    },
  };
}
