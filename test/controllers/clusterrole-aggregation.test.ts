// The clusterrole-aggregation loop writes into every ClusterRole with an aggregationRule the rules
// of the ClusterRoles its selectors pick: the built-in admin, edit and view aggregate as upstream
// (view ⊂ edit ⊂ admin, through the rbac.authorization.k8s.io/aggregate-to-* labels), and a
// labelled role's rules join, change and leave with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, type ClusterRole, type PolicyRule } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

let cluster: TestCluster;
let client: Client;
const role = async (name: string) => client.get(builtin.clusterRoles, name);
const rulesOf = async (name: string) => ((await role(name)).rules ?? []) as PolicyRule[];
const has = (rules: readonly PolicyRule[], wanted: PolicyRule) => rules.some((r) => canonicalJson(r) === canonicalJson(wanted));
const same = (a: readonly PolicyRule[], b: readonly PolicyRule[]) => canonicalJson(a) === canonicalJson(b);
const clusterRole = (name: string, labels: Record<string, string>, rules: PolicyRule[], extra: Partial<ClusterRole> = {}): ClusterRole => ({
  apiVersion: 'rbac.authorization.svc.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
  ...extra,
});
const WIDGETS: PolicyRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] };

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: { controllers: ['clusterrole-aggregation-controller'] } });
  client = cluster.client;
});
afterAll(() => cluster.stop());

describe('clusterrole-aggregation loop', () => {
  it('fills the built-in view, edit and admin from the aggregate-to roles, each including the smaller one', async () => {
    // Every role labelled to join each one (system:aggregate-to-*, and others such as the
    // metrics reader), as the loop's selectors pick them.
    const labelled = async (level: string) =>
      (await client.list(builtin.clusterRoles, { labelSelector: `rbac.authorization.k8s.io/aggregate-to-${level}=true` })).items
        .filter((r) => r.aggregationRule === undefined)
        .flatMap((r) => (r.rules ?? []) as PolicyRule[]);
    const view = await labelled('view');
    const edit = await labelled('edit');
    const admin = await labelled('admin');
    expect(view.length).toBeGreaterThan(0);
    await eventually(async () => (await rulesOf('admin')).length === new Set([...admin, ...edit, ...view].map((r) => canonicalJson(r))).size, 'admin filled');
    const viewRules = await rulesOf('view');
    for (const rule of view) expect(has(viewRules, rule)).toBe(true);
    const editRules = await rulesOf('edit');
    for (const rule of [...edit, ...view]) expect(has(editRules, rule)).toBe(true);
    const adminRules = await rulesOf('admin');
    for (const rule of [...admin, ...edit, ...view]) expect(has(adminRules, rule)).toBe(true);
    // Upstream's labels: edit is aggregated into admin, view into edit and admin.
    expect((await role('view')).metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-edit': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
  });

  it('a role labelled aggregate-to-view joins view, edit and admin; unlabelled it leaves them', async () => {
    await client.create(builtin.clusterRoles, clusterRole('widget-viewer', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [WIDGETS]));
    for (const name of ['view', 'edit', 'admin']) await eventually(async () => has(await rulesOf(name), WIDGETS), `widgets in ${name}`);
    await client.patch(builtin.clusterRoles, 'widget-viewer', { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': null } } });
    for (const name of ['view', 'edit', 'admin']) await eventually(async () => !has(await rulesOf(name), WIDGETS), `widgets out of ${name}`);
  });

  it('a role of its own: rules follow the picked roles as they change and go', async () => {
    await client.create(builtin.clusterRoles, clusterRole('monitoring', {}, [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] } }));
    await client.create(builtin.clusterRoles, clusterRole('pod-reader', { 'example.com/aggregate-to-monitoring': 'true' }, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]));
    await client.create(builtin.clusterRoles, clusterRole('node-reader', { 'example.com/aggregate-to-monitoring': 'true' }, [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]));
    const nodes: PolicyRule = { apiGroups: [''], resources: ['nodes'], verbs: ['get'] };
    const pods: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
    // In the picked roles' name order, each once.
    await eventually(async () => same(await rulesOf('monitoring'), [nodes, pods]), 'monitoring filled');
    const podsAndList: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
    await client.patch(builtin.clusterRoles, 'pod-reader', { rules: [podsAndList] });
    await eventually(async () => same(await rulesOf('monitoring'), [nodes, podsAndList]), 'a changed rule follows');
    await client.delete(builtin.clusterRoles, 'node-reader');
    await eventually(async () => same(await rulesOf('monitoring'), [podsAndList]), 'a deleted role leaves');
    // Rules written by hand into an aggregated role are the loop's to replace.
    await client.patch(builtin.clusterRoles, 'monitoring', { rules: [WIDGETS] });
    await eventually(async () => same(await rulesOf('monitoring'), [podsAndList]), 'hand-written rules replaced');
  });
});
