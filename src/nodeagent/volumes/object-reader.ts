import { z } from 'zod';
import { isStatusError, StatusError, type ConfigMap, type PersistentVolume, type PersistentVolumeClaim, type Pod, type Secret, type Service } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';

/** The API objects a pod's env and volumes read: its ConfigMaps, Secrets and service-account tokens. */
export interface PodObjectReader {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  /** TokenRequest for the pod's service account, bound to the pod. */
  serviceAccountToken(
    pod: Pod,
    request: { audience?: string; expirationSeconds: number },
  ): Promise<{ token: string; expirationTimestamp: string }>;
  /**
   * The Services of a namespace, for service-link env variables. Optional: a reader without it
   * gives containers no service links.
   */
  services?(namespace: string): Promise<readonly Service[]>;
  /** A claim and a volume, for `persistentVolumeClaim` and `ephemeral` volumes. Optional: without them such volumes fail to mount. */
  persistentVolumeClaim?(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  persistentVolume?(name: string): Promise<PersistentVolume | undefined>;
}

const tokenRequestStatusSchema = z.looseObject({
  status: z.looseObject({ token: z.string().min(1), expirationTimestamp: z.string().min(1) }),
});

/**
 * Reads through the API server on every call (no cache): the agent calls it once per pod sync, and
 * a re-sync must see a ConfigMap's latest content. A missing object is `undefined`, never an error,
 * so each caller decides whether its reference was optional.
 */
export function podObjectReader(client: Client): PodObjectReader {
  const orUndefined = async <T>(read: Promise<T>): Promise<T | undefined> => {
    try {
      return await read;
    } catch (error) {
      if (isStatusError(error, 'NotFound')) return undefined;
      throw error;
    }
  };
  return {
    configMap: (namespace, name) => orUndefined(client.get(builtin.configMaps, name, { namespace })),
    secret: (namespace, name) => orUndefined(client.get(builtin.secrets, name, { namespace })),
    services: async (namespace) => (await client.list(builtin.services, { namespace })).items,
    persistentVolumeClaim: (namespace, name) => orUndefined(client.get(builtin.persistentVolumeClaims, name, { namespace })),
    persistentVolume: (name) => orUndefined(client.get(builtin.persistentVolumes, name)),
    async serviceAccountToken(pod, request) {
      const namespace = pod.metadata.namespace ?? 'default';
      const account = pod.spec.serviceAccountName || pod.spec.serviceAccount || 'default';
      const body = await client.createToken(namespace, account, {
        // No audience: the API server's own audiences, as for the kubelet.
        audiences: request.audience ? [request.audience] : [],
        expirationSeconds: request.expirationSeconds,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name!, uid: pod.metadata.uid },
      });
      const parsed = tokenRequestStatusSchema.safeParse(body);
      if (!parsed.success) {
        throw new StatusError({ reason: 'InternalError', message: `the TokenRequest for service account ${namespace}/${account} carries no token` });
      }
      return { token: parsed.data.status.token, expirationTimestamp: parsed.data.status.expirationTimestamp };
    },
  };
}
