import { RBAC_GROUP, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Subject } from '../../api/index.js';

/**
 * The roles and bindings a cluster has from its first start. Names, labels and annotations are
 * Kubernetes' own (`cluster-admin`, `rbac.authorization.k8s.io/aggregate-to-edit`, ...), so
 * manifests written for upstream clusters find what they expect; the daemons svc adds are named
 * `system:svc-*`. Groups are written the upstream way (`authorization.k8s.io`): rule matching
 * treats them as svc's.
 */

/** Kubernetes' annotation: "false" makes the server leave a default object as the user edited it. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';

/** Users and groups the svc daemons authenticate as. */
export const CONTROLLER_MANAGER_USER = 'system:svc-controller-manager';
export const SCHEDULER_USER = 'system:svc-scheduler';
export const NODES_GROUP = 'system:nodes';
/** Every bootstrap token's group (authn/bootstrap-tokens.ts). */
const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
/** Upstream's names of the roles that let csrapproving approve node client requests. */
const CSR_ROLE_PREFIX = 'system:certificates.k8s.io:certificatesigningrequests:';
/** A node agent's user name: `system:node:<node name>`, in group system:nodes. */
export const nodeUser = (node: string) => `system:node:${node}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL_OBJECT_VERBS = [...READ, ...WRITE];
const AGGREGATE_TO = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const rule = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({ apiGroups, resources, verbs });
const urls = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

function clusterRole(name: string, rules: PolicyRule[], extra: Partial<ClusterRole> & { labels?: Record<string, string> } = {}): ClusterRole {
  const { labels, ...rest } = extra;
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    rules,
    ...rest,
  };
}

const aggregated = (name: string, labels: Record<string, string> = {}) =>
  clusterRole(name, [], { labels, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(name)]: 'true' } }] } });

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });

function binding(role: string, subjects: Subject[], name = role): ClusterRoleBinding {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects,
  };
}

const DISCOVERY_URLS = ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', '/version', '/version/'];
const HEALTH_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

/** What `view` grants: reading the workloads and their config, never secrets. */
const VIEW_RULES: PolicyRule[] = [
  rule(
    [''],
    [
      'pods', 'pods/status', 'pods/log', 'configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status',
      'replicationcontrollers', 'replicationcontrollers/scale', 'replicationcontrollers/status', 'serviceaccounts', 'services',
      'services/status', 'bindings', 'events', 'limitranges', 'resourcequotas', 'resourcequotas/status', 'namespaces', 'namespaces/status',
    ],
    READ,
  ),
  rule(
    ['apps'],
    [
      'controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status',
      'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status',
    ],
    READ,
  ),
  rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
  rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
  rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
  rule(['discovery.k8s.io'], ['endpointslices'], READ),
  rule(['events.k8s.io'], ['events'], READ),
  rule(['coordination.k8s.io'], ['leases'], READ),
];

/** What `edit` adds: writing the workloads, their config and secrets; not roles or quotas. */
const EDIT_RULES: PolicyRule[] = [
  rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'pods/eviction'], WRITE),
  rule(
    [''],
    ['configmaps', 'endpoints', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'],
    WRITE,
  ),
  rule([''], ['secrets', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'services/proxy'], READ),
  rule([''], ['serviceaccounts'], ['impersonate']),
  rule([''], ['serviceaccounts/token'], ['create']),
  rule(['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'], WRITE),
  rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
  rule(['batch'], ['cronjobs', 'jobs'], WRITE),
  rule(['policy'], ['poddisruptionbudgets'], WRITE),
  rule(['discovery.k8s.io'], ['endpointslices'], WRITE),
  rule(['coordination.k8s.io'], ['leases'], WRITE),
];

/** What `admin` adds: the namespace's roles and bindings, and checking others' access in it. */
const ADMIN_RULES: PolicyRule[] = [
  rule(['rbac.authorization.k8s.io'], ['rolebindings', 'roles'], ALL_OBJECT_VERBS),
  rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']),
];

export const BOOTSTRAP_CLUSTER_ROLES: readonly ClusterRole[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
  clusterRole('system:discovery', [urls(DISCOVERY_URLS, ['get'])]),
  clusterRole('system:public-info-viewer', [urls(HEALTH_URLS, ['get'])]),
  // Upstream's role for scrapers: the metrics and the detailed health checks.
  clusterRole('system:monitoring', [urls(['/metrics', '/metrics/slis', '/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*'], ['get'])]),
  clusterRole('system:basic-user', [
    rule(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
    rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
  ]),
  clusterRole('system:auth-delegator', [
    rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  ]),
  aggregated('admin'),
  aggregated('edit', { [AGGREGATE_TO('admin')]: 'true' }),
  aggregated('view', { [AGGREGATE_TO('admin')]: 'true', [AGGREGATE_TO('edit')]: 'true' }),
  clusterRole('system:aggregate-to-admin', ADMIN_RULES, { labels: { [AGGREGATE_TO('admin')]: 'true' } }),
  clusterRole('system:aggregate-to-edit', EDIT_RULES, { labels: { [AGGREGATE_TO('edit')]: 'true' } }),
  clusterRole('system:aggregate-to-view', VIEW_RULES, { labels: { [AGGREGATE_TO('view')]: 'true' } }),
  // metrics-server's role: whoever may view a namespace may read its resource metrics (kubectl top).
  clusterRole('system:aggregated-metrics-reader', [rule(['metrics.k8s.io'], ['pods', 'nodes'], ['get', 'list', 'watch'])], {
    labels: { [AGGREGATE_TO('view')]: 'true', [AGGREGATE_TO('edit')]: 'true', [AGGREGATE_TO('admin')]: 'true' },
  }),
  // One controller manager runs every control loop under one identity, and the garbage collector
  // and the namespace controller must read, update and delete objects of every type (custom ones
  // included): so it may do any object verb on anything, but not bind, escalate or impersonate.
  // csrapproving and csrsigning approve and sign for the built-in signers (CertificateApproval and
  // CertificateSigning ask for these verbs), as upstream's certificate controllers may.
  clusterRole(CONTROLLER_MANAGER_USER, [rule(['*'], ['*'], ALL_OBJECT_VERBS), rule(['certificates.k8s.io'], ['signers'], ['approve', 'sign'])]),
  clusterRole(SCHEDULER_USER, [
    rule([''], ['events'], ['create', 'patch', 'update']),
    rule(['events.k8s.io'], ['events'], ['create', 'patch', 'update']),
    rule(['coordination.k8s.io'], ['leases'], ['create', 'get', 'update']),
    rule([''], ['nodes', 'namespaces', 'services', 'replicationcontrollers', 'persistentvolumes', 'persistentvolumeclaims'], READ),
    rule([''], ['pods'], [...READ, 'delete']),
    rule([''], ['bindings', 'pods/binding'], ['create']),
    rule([''], ['pods/status'], ['patch', 'update']),
    rule(['apps'], ['replicasets', 'statefulsets'], READ),
    rule(['policy'], ['poddisruptionbudgets'], READ),
    // Volume binding: the selected node is written on claims that wait for their first consumer.
    rule([''], ['persistentvolumeclaims', 'persistentvolumes'], ['patch', 'update']),
    rule(['storage.k8s.io'], ['storageclasses', 'csinodes', 'csidrivers'], READ),
    rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  ]),
  clusterRole('system:node', [
    rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    rule(['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews'], ['create']),
    rule([''], ['services', 'endpoints'], READ),
    rule([''], ['nodes'], ['create', 'get', 'list', 'watch', 'patch', 'update', 'delete']),
    rule([''], ['nodes/status'], ['patch', 'update']),
    rule([''], ['events'], ['create', 'patch', 'update']),
    rule([''], ['pods'], [...READ, 'create', 'delete']),
    rule([''], ['pods/status'], ['patch', 'update']),
    rule([''], ['pods/eviction'], ['create']),
    rule([''], ['configmaps', 'secrets'], READ),
    rule([''], ['persistentvolumeclaims', 'persistentvolumes'], ['get']),
    rule([''], ['persistentvolumeclaims/status'], ['patch', 'update']),
    rule(['storage.k8s.io'], ['volumeattachments'], ['get']),
    rule([''], ['serviceaccounts/token'], ['create']),
    rule(['coordination.k8s.io'], ['leases'], ['create', 'delete', 'get', 'patch', 'update']),
    rule(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', ...READ]),
  ]),
  // Node TLS bootstrap (docs/node-agent.md#tls-bootstrap): a joining node may ask for certificates,
  // and the csrapproving loop approves node client requests of users these two roles are bound to.
  clusterRole('system:node-bootstrapper', [rule(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', ...READ])]),
  clusterRole(`${CSR_ROLE_PREFIX}nodeclient`, [rule(['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'], ['create'])]),
  clusterRole(`${CSR_ROLE_PREFIX}selfnodeclient`, [rule(['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'], ['create'])]),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = [
  binding('cluster-admin', [group('system:masters')]),
  binding('system:discovery', [group('system:authenticated')]),
  binding('system:basic-user', [group('system:authenticated')]),
  binding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  binding('system:monitoring', [group('system:monitoring')]),
  binding(CONTROLLER_MANAGER_USER, [user(CONTROLLER_MANAGER_USER)]),
  binding(SCHEDULER_USER, [user(SCHEDULER_USER)]),
  // Without a Node authorizer, nodes are authorized as a group: each may act on any node's objects.
  binding('system:node', [group(NODES_GROUP)], 'system:nodes'),
  // As kubeadm binds them: any bootstrap token may ask for a node client certificate, which is
  // approved on the spot; a node may renew its own.
  binding('system:node-bootstrapper', [group(BOOTSTRAPPERS_GROUP)], 'svc:node-bootstrapper'),
  binding(`${CSR_ROLE_PREFIX}nodeclient`, [group(BOOTSTRAPPERS_GROUP)], 'svc:node-autoapprove-bootstrap'),
  binding(`${CSR_ROLE_PREFIX}selfnodeclient`, [group(NODES_GROUP)], 'svc:node-autoapprove-certificate-rotation'),
];
