import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';
import { startWebhookServer, type WebhookServer } from '../apiserver/admission/webhook-server.js';

const k = useKubectlServer('svc-kubectl-admission-');
let w: WebhookServer;
beforeAll(async () => {
  w = await startWebhookServer();
});
afterAll(async () => {
  await w.close();
});

describe('admission through kubectl', () => {
  it('creates a webhook configuration from YAML, lists its webhooks and shows a denial', async () => {
    w.on('/deny', (review) => ({ response: { uid: review.request.uid, allowed: false, status: { message: 'configmaps need a team label' } } }));
    const manifest = join(k.dir, 'webhook.yaml');
    writeFileSync(
      manifest,
      [
        // kubectl maps kinds through discovery, which names svc's groups.
        'apiVersion: admissionregistration.svc.io/v1',
        'kind: ValidatingWebhookConfiguration',
        'metadata:',
        '  name: team-label',
        'webhooks:',
        '- name: team-label.example.com',
        '  admissionReviewVersions: ["v1"]',
        '  sideEffects: None',
        '  clientConfig:',
        `    url: ${w.url}/deny`,
        `    caBundle: ${w.caBundle}`,
        '  rules:',
        '  - operations: ["CREATE"]',
        '    apiGroups: [""]',
        '    apiVersions: ["v1"]',
        '    resources: ["configmaps"]',
        '  objectSelector:',
        '    matchExpressions:',
        '    - {key: team, operator: DoesNotExist}',
        '',
      ].join('\n'),
    );
    const created = await kubectl(k.config, ['apply', '-f', manifest]);
    expect(created.code, created.stderr).toBe(0);
    const listed = await kubectl(k.config, ['get', 'validatingwebhookconfigurations']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+WEBHOOKS\s+AGE\n/);
    expect(listed.stdout).toMatch(/team-label\s+1\s+/);

    const denied = await kubectl(k.config, ['create', 'configmap', 'loose']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('admission webhook "team-label.example.com" denied the request: configmaps need a team label');
    const labelled = await kubectl(k.config, ['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  labels: {team: a}\n');
    expect(labelled.code, labelled.stderr).toBe(0);
  });

  it('shows the quota refusal kubectl users know', async () => {
    expect((await kubectl(k.config, ['create', 'namespace', 'capped'])).code).toBe(0);
    // The pods' account, as the serviceaccount loop would make it (this suite runs no controller manager).
    expect((await kubectl(k.config, ['create', 'serviceaccount', 'default', '-n', 'capped'])).code).toBe(0);
    expect((await kubectl(k.config, ['create', 'quota', 'cap', '-n', 'capped', '--hard=pods=1'])).code).toBe(0);
    expect((await kubectl(k.config, ['run', 'one', '-n', 'capped', '--image=busybox'])).code).toBe(0);
    const over = await kubectl(k.config, ['run', 'two', '-n', 'capped', '--image=busybox']);
    expect(over.code).not.toBe(0);
    expect(over.stderr).toContain('pods "two" is forbidden: exceeded quota: cap, requested: pods=1, used: pods=1, limited: pods=1');
  });
});
