import { describe, expect, it } from 'vitest';
import { builtinTypes, customResourceDefinitionType, defaultPullPolicy, hasDefaults, withDefaults } from '../../src/api/index.js';
import { DEFAULTS_CASES, VIRTUAL_KINDS } from '../support/default-fixtures.js';

// CustomResourceDefinitions are served once the server starts (src/apiserver/crd); their kind is built in all the same.
const KINDS = [...builtinTypes, customResourceDefinitionType];
const typeOf = (key: string) => KINDS.find((t) => `${t.group}/${t.kind}` === key)!;
const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object') {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
};

describe('defaults of the built-in kinds', () => {
  it('covers every built-in kind', () => {
    const keys = new Set(KINDS.map((t) => `${t.group}/${t.kind}`));
    const covered = new Set([...DEFAULTS_CASES.map((c) => c.key), ...VIRTUAL_KINDS]);
    expect([...keys].filter((key) => !covered.has(key))).toEqual([]);
    expect([...covered].filter((key) => !keys.has(key))).toEqual([]);
    for (const key of VIRTUAL_KINDS) expect(typeOf(key).virtual).toBe(true);
  });

  it.each(DEFAULTS_CASES.map((c) => [c.key, c] as const))('%s: the fields Kubernetes answers are filled in', (key, c) => {
    const type = typeOf(key);
    const body = deepFreeze({ apiVersion: 'v1', kind: type.kind, metadata: { name: 'x' }, ...structuredClone(c.body) });
    // Frozen: the input is never mutated (it may be a stored version or an admission cache entry).
    const defaulted = withDefaults(type, body);
    // The status split (create drops a sent status) is the server's; compare the rest here.
    const { status: _s, ...expected } = c.expected;
    expect(defaulted).toMatchObject(expected);
    // Idempotent: defaults of a defaulted object change nothing, and give back the same object.
    expect(withDefaults(type, defaulted)).toBe(defaulted);
  });

  it('keeps what the object sets', () => {
    const type = typeOf('/Service');
    const service = { metadata: { name: 's' }, spec: { type: 'NodePort', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 8080, protocol: 'UDP' }] }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    expect(withDefaults(type, service)).toEqual({
      metadata: { name: 's' },
      spec: { type: 'NodePort', sessionAffinity: 'ClientIP', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, targetPort: 8080, protocol: 'UDP' }] },
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    });
    const deployment = withDefaults(typeOf('apps/Deployment'), { metadata: { name: 'd' }, spec: { strategy: { type: 'Recreate' } } });
    expect((deployment as { spec: { strategy: unknown } }).spec.strategy).toEqual({ type: 'Recreate' });
    const job = withDefaults(typeOf('batch/Job'), { metadata: { name: 'j' }, spec: { parallelism: 3 } });
    expect((job as { spec: Record<string, unknown> }).spec).toMatchObject({ parallelism: 3 });
    expect((job as { spec: Record<string, unknown> }).spec['completions']).toBeUndefined();
  });

  it('fills container statuses, probes and volumes', () => {
    const pod = withDefaults(typeOf('/Pod'), {
      metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'c', image: 'registry.example/app:1.2', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { path: '/', port: 80 } } }],
        volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 's', secret: { secretName: 's' } }],
      },
      status: { containerStatuses: [{ name: 'c' }] },
    }) as unknown as { spec: { containers: Record<string, unknown>[]; volumes: Record<string, unknown>[] }; status: { containerStatuses: unknown[] } };
    expect(pod.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      livenessProbe: { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, httpGet: { scheme: 'HTTP' } },
    });
    expect(pod.spec.volumes).toEqual([
      { name: 'v', configMap: { name: 'cm', defaultMode: 420 } },
      { name: 's', secret: { secretName: 's', defaultMode: 420 } },
    ]);
    expect(pod.status.containerStatuses).toEqual([{ name: 'c', state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' }]);
  });

  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['localhost:5000/busybox', 'Always'],
    ['localhost:5000/busybox:1', 'IfNotPresent'],
    ['busybox@sha256:0123', 'IfNotPresent'],
  ])('pull policy of %s is %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });

  it('has nothing for custom resources', () => {
    expect(hasDefaults({ group: 'example.com', kind: 'Widget' })).toBe(false);
    const widget = { metadata: { name: 'w' } };
    expect(withDefaults({ group: 'example.com', kind: 'Widget' }, widget)).toBe(widget);
  });
});
