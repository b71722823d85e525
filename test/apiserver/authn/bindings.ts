/** A ClusterRoleBinding that gives the service account `name` in `default` the `view` role. */
export function viewBindingFor(name: string) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${name}-view` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name, namespace: 'default' }],
  };
}
