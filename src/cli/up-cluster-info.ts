import { stringify } from 'yaml';
import { CLUSTER_INFO_CONFIGMAP, RBAC_GROUP } from '../api/index.js';
import { builtin, type Client } from '../client/index.js';

/** The public namespace: readable without credentials where it matters (cluster-info). */
const PUBLIC_NAMESPACE = 'svc-public';
/** kubeadm's pair, under svc's prefix: anonymous users may read cluster-info, and only it. */
const READER = 'svc:bootstrap-signer-clusterinfo';
const FIELD_MANAGER = 'svc-up';

export interface ClusterIdentity {
  /** The API server's URL, as nodes reach it. */
  readonly server: string;
  /** PEM of the CA that signed the API server's certificate. */
  readonly caPem: string;
}

/**
 * The kubeconfig of `cluster-info` as kubeadm writes it: one cluster with no name, its server and
 * CA, no user and no context. A joining node trusts it once a bootstrap token's signature over it
 * (the bootstrap-signer loop's `jws-kubeconfig-<id>`) checks out.
 */
export function clusterInfoKubeconfig(identity: ClusterIdentity): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: '', cluster: { 'certificate-authority-data': Buffer.from(identity.caPem).toString('base64'), server: identity.server } }],
    contexts: null,
    'current-context': '',
    preferences: {},
    users: null,
  });
}

/**
 * Publishes `cluster-info` in `svc-public` (as `kubeadm init` does): its `kubeconfig` applied on
 * every start (server-side apply by `svc-up`, so the signer's signatures, which it owns, stay),
 * and the Role and RoleBinding that let `system:anonymous` get it.
 */
export async function publishClusterInfo(client: Client, identity: ClusterIdentity): Promise<void> {
  const apply = { namespace: PUBLIC_NAMESPACE, type: 'apply', fieldManager: FIELD_MANAGER, force: true } as const;
  await client.patch(
    builtin.configMaps,
    CLUSTER_INFO_CONFIGMAP,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_CONFIGMAP, namespace: PUBLIC_NAMESPACE }, data: { kubeconfig: clusterInfoKubeconfig(identity) } },
    apply,
  );
  await client.patch(
    builtin.roles,
    READER,
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name: READER, namespace: PUBLIC_NAMESPACE },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_CONFIGMAP], verbs: ['get'] }],
    },
    apply,
  );
  await client.patch(
    builtin.roleBindings,
    READER,
    {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name: READER, namespace: PUBLIC_NAMESPACE },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: READER },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'system:anonymous' }],
    },
    apply,
  );
}
