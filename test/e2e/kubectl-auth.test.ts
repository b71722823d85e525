import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';

/** kubectl auth can-i (SelfSubjectAccessReview) against a real server, as the admin and as a plain user. */
describe('kubectl auth can-i', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kubectl-auth-'));
  let server: RunningApiServer;
  let alice: string;

  beforeAll(async () => {
    requireKubectl();
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token-0123456789,alice,u-alice,"devs"\n');
    server = await startApiServer({ dataDir: join(dir, 'data'), storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0, tokenAuthFile: tokens });
    alice = join(dir, 'alice.svcconfig');
    writeFileSync(alice, readFileSync(server.svcconfigPath, 'utf8').replace(server.adminToken, 'alice-token-0123456789'));
    const manifest = join(dir, 'rbac.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team',
        'apiVersion: rbac.authorization.svc.io/v1\nkind: RoleBinding\nmetadata:\n  name: devs-edit\n  namespace: team\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: edit\nsubjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: devs',
      ].join('\n---\n'),
    );
    const created = await kubectl(server.svcconfigPath, ['create', '-f', manifest]);
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says yes to the admin (system:masters) for anything', async () => {
    const res = await kubectl(server.svcconfigPath, ['auth', 'can-i', 'delete', 'nodes']);
    expect(res.stdout.trim()).toBe('yes');
    expect(res.code).toBe(0);
  });

  it('answers a plain user by its bindings, namespace by namespace', async () => {
    const yes = await kubectl(alice, ['auth', 'can-i', 'create', 'deployments.apps', '-n', 'team']);
    expect(yes.stdout.trim(), yes.stderr).toBe('yes');
    const no = await kubectl(alice, ['auth', 'can-i', 'create', 'deployments.apps', '-n', 'default']);
    expect(no.stdout.trim()).toBe('no');
    expect(no.code).toBe(1);
    const roles = await kubectl(alice, ['auth', 'can-i', 'create', 'roles.rbac.authorization.svc.io', '-n', 'team']);
    expect(roles.stdout.trim()).toBe('no');
  });

  it('and the real requests agree', async () => {
    const denied = await kubectl(alice, ['get', 'pods', '-n', 'default']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const allowed = await kubectl(alice, ['get', 'pods', '-n', 'team']);
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it('lists the rules (SelfSubjectRulesReview)', async () => {
    const res = await kubectl(alice, ['auth', 'can-i', '--list', '-n', 'team']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('deployments.apps');
    expect(res.stdout).toContain('selfsubjectaccessreviews.authorization.k8s.io');
  });
});
