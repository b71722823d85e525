import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { podSpec } from '../encoding/support/full-objects.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

/**
 * kubectl's typed clients speak protobuf with Kubernetes' Go types: `kubectl create job --from`
 * builds the Job from the CronJob's template and posts it as protobuf, and decodes svc's protobuf
 * answer. A field number or wire type of svc's messages that differed from Kubernetes' would make
 * one side fail to decode, or lose or garble the field: the Job's template must come out equal
 * to the CronJob's.
 */
/** The values in `got` that `want` does not have, with their paths. */
function extras(want: unknown, got: unknown, path = ''): { path: string; value: unknown }[] {
  if (Array.isArray(want) && Array.isArray(got)) return got.flatMap((item, i) => extras(want[i], item, `${path}[${i}]`));
  if (want && got && typeof want === 'object' && typeof got === 'object') {
    return Object.entries(got).flatMap(([key, value]) =>
      key in want ? extras((want as Record<string, unknown>)[key], value, `${path}.${key}`) : [{ path: `${path}.${key}`, value }],
    );
  }
  return [];
}

const isGoZero = (value: unknown): boolean =>
  value === 0 || value === false || value === '0' || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

describe('kubectl reads and writes the complete messages in protobuf', () => {
  const k = useKubectlServer('svc-kubectl-pb-fields-', 'memory');

  it('copies a CronJob with a full pod template into a Job (protobuf both ways)', async () => {
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          metadata: { labels: { app: 'web' } },
          spec: {
            completions: 2,
            backoffLimit: 3,
            podFailurePolicy: {
              rules: [
                { action: 'FailJob', onExitCodes: { containerName: 'web', operator: 'In', values: [42] } },
                { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
              ],
            },
            template: { metadata: { labels: { app: 'web' } }, spec: { ...podSpec, restartPolicy: 'Never' } },
          },
        },
      },
    };
    const manifest = join(k.dir, 'cronjob.json');
    writeFileSync(manifest, JSON.stringify(cronJob));
    // svc's JSON schemas do not model a few of these fields yet (csi, ephemeral, nfs and image
    // volumes, resizePolicy, ...): strict validation would refuse them, Ignore drops them.
    const created = await kubectl(k.config, ['create', '-f', manifest, '--validate=false']);
    expect(created.stderr).toBe('');

    const copied = await kubectl(k.config, ['create', 'job', 'manual-run', '--from=cronjob/nightly', '-v=8']);
    expect(copied.code, copied.stderr.split('\n').filter((l) => /error|Error/.test(l)).join('\n')).toBe(0);
    // kubectl posted the Job as protobuf (Go's encoder) and decoded svc's protobuf answer (Go's
    // decoder, which fails on a wire type that differs from Kubernetes').
    const post = copied.stderr.slice(copied.stderr.indexOf('verb="POST"'));
    expect(post).toMatch(/^verb="POST" url="[^"]*\/apis\/batch\/v1\/namespaces\/default\/jobs/);
    expect(post).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf\n/);
    expect(post).toMatch(/"Response" status="201 Created" headers=<[^>]*Content-Type: application\/vnd\.kubernetes\.protobuf\n/);
    expect(copied.stdout.trim()).toBe('job.batch/manual-run created');

    const stored = JSON.parse((await kubectl(k.config, ['get', 'cronjob', 'nightly', '-o', 'json'])).stdout);
    const job = JSON.parse((await kubectl(k.config, ['get', 'job', 'manual-run', '-o', 'json'])).stdout);
    const template = stored.spec.jobTemplate.spec;
    expect(job.spec.podFailurePolicy).toEqual(template.podFailurePolicy);
    // Every value of the template arrived. Go's encoder also writes its non-pointer fields when
    // they are zero (`hostNetwork: false`, `timeoutSeconds: 0`, `resources: {}`), and svc keeps
    // a zero that is on the wire (it cannot tell them from pointer fields such as
    // `replicas: 0`): those extras are the only other difference.
    expect(job.spec.template.spec).toMatchObject(template.template.spec);
    expect(extras(template.template.spec, job.spec.template.spec).filter((e) => !isGoZero(e.value))).toEqual([]);
    // The parts that exercise the new messages did reach the CronJob in the first place.
    for (const key of ['affinity', 'securityContext', 'topologySpreadConstraints', 'dnsConfig', 'hostAliases', 'volumes']) {
      expect(template.template.spec[key], key).toBeDefined();
    }
    expect(template.template.spec.containers[0].lifecycle).toEqual(podSpec.containers[0]!.lifecycle);
    expect(template.template.spec.volumes[0].projected.sources).toHaveLength(5);
  });
});
