// ResourceQuota through kubectl: `kubectl create quota` with bad limits or scopes is refused with
// the 422 naming the field (nothing stored), and a good one is described with what it counts.
import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';
import { eventually } from '../controllers/support.js';

const k = useKubectlServer('svc-kubectl-quota-');

describe('ResourceQuota through kubectl', () => {
  it('refuses a negative limit, naming spec.hard[pods]; nothing is stored', async () => {
    const refused = await kubectl(k.config, ['create', 'quota', 'neg', '--hard=pods=-1']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0');
    const missing = await kubectl(k.config, ['get', 'quota', 'neg']);
    expect(missing.stderr).toContain('NotFound');
  });

  it('refuses a scope that cannot limit a resource, and an unknown scope', async () => {
    const mismatch = await kubectl(k.config, ['create', 'quota', 'be', '--hard=requests.cpu=1', '--scopes=BestEffort']);
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.stderr).toContain('spec.scopes');
    expect(mismatch.stderr).toContain('unsupported scope applied to resource');
    const unknown = await kubectl(k.config, ['create', '-f', '-'], 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: odd}\nspec: {hard: {pods: "1"}, scopes: [Sometimes]}\n');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unsupported scope');
  });

  it('describes a good quota with what it counts', async () => {
    const created = await kubectl(k.config, ['create', 'quota', 'objects', '--hard=configmaps=5,count/secrets=3']);
    expect(created.code, created.stderr).toBe(0);
    expect((await kubectl(k.config, ['create', 'configmap', 'one'])).code).toBe(0);
    let described = '';
    // Admission charges the configmap; the quota's other counts the server's usage sync fills in.
    await eventually(async () => /configmaps\s+1\s+5/.test((described = (await kubectl(k.config, ['describe', 'quota', 'objects'])).stdout)), 'the configmap counted');
    expect(described).toMatch(/Resource\s+Used\s+Hard/);
    expect(described).toMatch(/configmaps\s+1\s+5/);
    expect(described).toMatch(/count\/secrets\s+0\s+3/);
  });
});
