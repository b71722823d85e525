import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                cronSpec:
                  type: string
                image:
                  type: string
                replicas:
                  type: integer
                  default: 1
      additionalPrinterColumns:
        - name: Spec
          type: string
          jsonPath: .spec.cronSpec
        - name: Replicas
          type: integer
          jsonPath: .spec.replicas
        - name: Image
          type: string
          priority: 1
          jsonPath: .spec.image
`;

const CRONTAB = `
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
spec:
  cronSpec: "* * * * */5"
  image: my-cron-image
`;

describe('kubectl and a custom resource', () => {
  const k = useKubectlServer('svc-kubectl-crd-');

  it('applies an upstream CRD manifest, then gets, lists wide and deletes its objects', async () => {
    const applied = await kubectl(k.config, ['apply', '-f', '-'], CRD);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toMatch(/^customresourcedefinition\.apiextensions\.(k8s|svc)\.io\/crontabs\.stable\.example\.com created$/);
    const waited = await kubectl(k.config, ['wait', '--for=condition=Established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    expect(waited.code).toBe(0);

    const created = await kubectl(k.config, ['apply', '-f', '-'], CRONTAB);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('crontab.stable.example.com/nightly created');

    const got = await kubectl(k.config, ['get', 'crontabs']);
    expect(got.code).toBe(0);
    expect(got.stdout.split('\n')[0]).toMatch(/^NAME\s+SPEC\s+REPLICAS$/);
    expect(got.stdout).toMatch(/nightly\s+\* \* \* \* \*\/5\s+1/);

    const wide = await kubectl(k.config, ['get', 'ct', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/^NAME\s+SPEC\s+REPLICAS\s+IMAGE$/);
    expect(wide.stdout).toContain('my-cron-image');

    const deleted = await kubectl(k.config, ['delete', 'crontab', 'nightly']);
    expect(deleted.stdout.trim()).toBe('crontab.stable.example.com "nightly" deleted');
    expect((await kubectl(k.config, ['get', 'crontabs', '-o', 'name'])).stdout.trim()).toBe('');

    const crdGone = await kubectl(k.config, ['delete', '-f', '-'], CRD);
    expect(crdGone.code).toBe(0);
    const after = await kubectl(k.config, ['get', 'crontabs']);
    expect(after.code).not.toBe(0);
  });
});
