// kubectl in normal use prints no warning: the commands the docs show, and the short names of
// resources svc serves under two group names (its own and the upstream one), which kubectl
// would report as ambiguous if both advertised them.
import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gdg] }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

const ROLE = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: reader, namespace: default }
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list]
`;

/** What kubectl writes to stderr besides its "No resources found" notice on an empty list. */
const unexpected = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('No resources found'))
    .join('\n');

describe('kubectl prints no warnings', () => {
  const k = useKubectlServer('svc-kubectl-quiet-');
  const run = async (args: string, stdin?: string) => {
    const result = await kubectl(k.config, args.split(' '), stdin);
    expect(result.code, `kubectl ${args}: ${result.stderr}`).toBe(0);
    expect(unexpected(result.stderr), `kubectl ${args}`).toBe('');
    return result;
  };

  it('for the short names of resources served under both group names', async () => {
    await run('apply -f -', CRD);
    await run('wait --for=condition=Established crd/gadgets.example.com --timeout=30s');
    const crds = await run('get crd');
    expect(crds.stdout).toContain('gadgets.example.com');
    await run('get crds');
    await run('get gdg');
    await run('get ev');
    await run('get csr');
    const resources = await run('api-resources');
    // Each short name is listed once: under svc's own group name, not again under the upstream one.
    const crdLines = resources.stdout.split('\n').filter((line) => line.startsWith('customresourcedefinitions '));
    expect(crdLines).toHaveLength(2);
    expect(crdLines.find((line) => line.includes('apiextensions.svc.io/v1'))).toMatch(/\bcrd,crds\b/);
    expect(crdLines.find((line) => line.includes('apiextensions.k8s.io/v1'))).not.toMatch(/\bcrd\b/);
  });

  it('for the commands shown in README and docs', async () => {
    for (const command of [
      'get --raw /healthz',
      'version',
      'get ns',
      'get nodes',
      'api-versions',
      'get roles',
      'get roles.rbac.authorization.k8s.io',
      'create namespace quiet',
      'create serviceaccount robot',
      'create clusterrolebinding robot-view --clusterrole=view --serviceaccount=default:robot',
      'get clusterrole admin -o yaml',
      'auth can-i get pods',
      'auth can-i --list',
      'create token robot --duration=2h --audience=vault',
      'get all',
      'create configmap settings --from-literal=a=b',
      // (--cascade=foreground and orphan need the garbage collector, which this bare server lacks: kubectl-gc.test.ts.)
      'delete configmap settings',
      // No namespace controller runs here to finish the deletion: kubectl is not asked to wait for it.
      'delete namespace quiet --wait=false',
    ]) {
      await run(command);
    }
    await run('apply -f -', ROLE);
    const roles = await run('get roles');
    expect(roles.stdout).toContain('reader');
  });

  it('discovery: the upstream group names advertise no short names, svc\'s own do', async () => {
    const upstream = JSON.parse((await run('get --raw /apis/apiextensions.k8s.io/v1')).stdout) as { resources: { name: string; shortNames?: string[] }[] };
    const own = JSON.parse((await run('get --raw /apis/apiextensions.svc.io/v1')).stdout) as { resources: { name: string; shortNames?: string[] }[] };
    expect(upstream.resources.find((r) => r.name === 'customresourcedefinitions')?.shortNames).toBeUndefined();
    expect(own.resources.find((r) => r.name === 'customresourcedefinitions')?.shortNames).toEqual(['crd', 'crds']);
    const events = JSON.parse((await run('get --raw /apis/events.svc.io/v1')).stdout) as { resources: { name: string; shortNames?: string[] }[] };
    expect(events.resources.find((r) => r.name === 'events')?.shortNames).toBeUndefined();
  });
});
