import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { expandVariables, podObjectReader, resolveEnv, resolveEnvReporting, type EnvContext } from '../../../src/nodeagent/index.js';
import { startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  api = await startVolumesApiServer();
  await api.client.create(builtin.configMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'default' },
    data: { A: 'from-cfg', B: 'b', '1starts-with-digit': 'y', '2nd': 'x', 'dotted.name': 'z' },
    binaryData: { BIN: b64('binary') },
  });
  await api.client.create(builtin.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'sec', namespace: 'default' },
    data: { PASSWORD: b64('s3cret'), A: b64('from-secret') },
  });
});
afterAll(async () => api?.close());

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'uid-123',
    labels: { app: 'web', tier: 'front' },
    annotations: { note: 'say "hi"\n' },
  },
  spec: {
    nodeName: 'node-a',
    serviceAccountName: 'robot',
    containers: [
      { name: 'main', image: 'busybox', resources: { limits: { cpu: '250m', memory: '64Mi' }, requests: { cpu: '100m' } } },
      { name: 'side', image: 'busybox', resources: { limits: { memory: '1Gi' } } },
    ],
  },
  status: { hostIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }] },
};

function context(container: Partial<Container>): EnvContext {
  return {
    pod,
    container: { ...pod.spec.containers[0]!, ...container },
    nodeName: 'node-a',
    hostIP: '10.0.0.5',
    podIP: '10.1.0.7',
    podIPs: ['10.1.0.7', 'fd01::7'],
    nodeAllocatable: { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' },
    objects: podObjectReader(api.client),
  };
}

const field = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
const resource = (name: string, divisor?: string, containerName?: string) => ({
  valueFrom: { resourceFieldRef: { resource: name, ...(divisor ? { divisor } : {}), ...(containerName ? { containerName } : {}) } },
});

describe('resolveEnv: every rule of env and envFrom', () => {
  const cases: { rule: string; container: Partial<Container>; env: Record<string, string> }[] = [
    { rule: 'a plain value', container: { env: [{ name: 'X', value: '1' }] }, env: { X: '1' } },
    { rule: 'an empty value', container: { env: [{ name: 'X' }] }, env: { X: '' } },
    {
      rule: '$(VAR) expands a variable defined before',
      container: { env: [{ name: 'A', value: 'a' }, { name: 'B', value: '$(A)-b' }] },
      env: { A: 'a', B: 'a-b' },
    },
    { rule: 'a reference to a later variable stays as written', container: { env: [{ name: 'B', value: '$(A)' }, { name: 'A', value: 'a' }] }, env: { B: '$(A)', A: 'a' } },
    { rule: 'an unknown reference stays as written', container: { env: [{ name: 'X', value: 'x$(NOPE)y' }] }, env: { X: 'x$(NOPE)y' } },
    { rule: '$$ escapes a reference', container: { env: [{ name: 'A', value: 'a' }, { name: 'X', value: '$$(A)' }] }, env: { A: 'a', X: '$(A)' } },
    { rule: 'an unclosed $( stays', container: { env: [{ name: 'X', value: 'a$(b' }] }, env: { X: 'a$(b' } },
    { rule: '$ before other text and at the end stays', container: { env: [{ name: 'X', value: '$a $' }] }, env: { X: '$a $' } },
    {
      rule: 'valueFrom results are not expanded',
      container: { env: [{ name: 'A', value: 'a' }, { name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'B' } } }] },
      env: { A: 'a', X: 'b' },
    },
    {
      rule: 'a later entry replaces an earlier one in place',
      container: { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'A', value: '$(A)3' }] },
      env: { A: '13', B: '2' },
    },
    { rule: 'fieldRef metadata.name', container: { env: [{ name: 'X', ...field('metadata.name') }] }, env: { X: 'web' } },
    { rule: 'fieldRef metadata.namespace', container: { env: [{ name: 'X', ...field('metadata.namespace') }] }, env: { X: 'default' } },
    { rule: 'fieldRef metadata.uid', container: { env: [{ name: 'X', ...field('metadata.uid') }] }, env: { X: 'uid-123' } },
    { rule: "fieldRef metadata.labels['k']", container: { env: [{ name: 'X', ...field("metadata.labels['tier']") }] }, env: { X: 'front' } },
    { rule: 'fieldRef of a missing label is empty', container: { env: [{ name: 'X', ...field("metadata.labels['nope']") }] }, env: { X: '' } },
    { rule: "fieldRef metadata.annotations['k']", container: { env: [{ name: 'X', ...field("metadata.annotations['note']") }] }, env: { X: 'say "hi"\n' } },
    { rule: 'fieldRef metadata.labels (all, sorted, quoted)', container: { env: [{ name: 'X', ...field('metadata.labels') }] }, env: { X: 'app="web"\ntier="front"' } },
    { rule: 'fieldRef metadata.annotations (Go quoting)', container: { env: [{ name: 'X', ...field('metadata.annotations') }] }, env: { X: 'note="say \\"hi\\"\\n"' } },
    { rule: 'fieldRef spec.nodeName', container: { env: [{ name: 'X', ...field('spec.nodeName') }] }, env: { X: 'node-a' } },
    { rule: 'fieldRef spec.serviceAccountName', container: { env: [{ name: 'X', ...field('spec.serviceAccountName') }] }, env: { X: 'robot' } },
    { rule: 'fieldRef status.hostIP', container: { env: [{ name: 'X', ...field('status.hostIP') }] }, env: { X: '10.0.0.5' } },
    { rule: 'fieldRef status.hostIPs', container: { env: [{ name: 'X', ...field('status.hostIPs') }] }, env: { X: '10.0.0.5,fd00::5' } },
    { rule: 'fieldRef status.podIP', container: { env: [{ name: 'X', ...field('status.podIP') }] }, env: { X: '10.1.0.7' } },
    { rule: 'fieldRef status.podIPs', container: { env: [{ name: 'X', ...field('status.podIPs') }] }, env: { X: '10.1.0.7,fd01::7' } },
    { rule: 'resourceFieldRef limits.cpu rounds up to cores', container: { env: [{ name: 'X', ...resource('limits.cpu') }] }, env: { X: '1' } },
    { rule: 'resourceFieldRef limits.cpu with divisor 1m', container: { env: [{ name: 'X', ...resource('limits.cpu', '1m') }] }, env: { X: '250' } },
    { rule: 'resourceFieldRef requests.cpu with divisor 1m', container: { env: [{ name: 'X', ...resource('requests.cpu', '1m') }] }, env: { X: '100' } },
    { rule: 'resourceFieldRef limits.memory in bytes', container: { env: [{ name: 'X', ...resource('limits.memory') }] }, env: { X: String(64 * 2 ** 20) } },
    { rule: 'resourceFieldRef limits.memory with divisor 1Mi', container: { env: [{ name: 'X', ...resource('limits.memory', '1Mi') }] }, env: { X: '64' } },
    { rule: 'resourceFieldRef divisor 1M rounds 64Mi up', container: { env: [{ name: 'X', ...resource('limits.memory', '1M') }] }, env: { X: '68' } },
    { rule: 'resourceFieldRef requests.memory falls back to the limit', container: { env: [{ name: 'X', ...resource('requests.memory', '1Mi') }] }, env: { X: '64' } },
    { rule: 'resourceFieldRef limit falls back to node allocatable', container: { env: [{ name: 'X', ...resource('limits.ephemeral-storage', '1Gi') }] }, env: { X: '100' } },
    { rule: 'resourceFieldRef requests.ephemeral-storage unset is 0', container: { env: [{ name: 'X', ...resource('requests.ephemeral-storage') }] }, env: { X: '0' } },
    { rule: 'resourceFieldRef of another container', container: { env: [{ name: 'X', ...resource('limits.memory', '1Gi', 'side') }] }, env: { X: '1' } },
    { rule: 'resourceFieldRef cpu limit from allocatable', container: { env: [{ name: 'X', ...resource('limits.cpu', '1m', 'side') }] }, env: { X: '4000' } },
    { rule: 'configMapKeyRef', container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'A' } } }] }, env: { X: 'from-cfg' } },
    { rule: 'secretKeyRef decodes the value', container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'sec', key: 'PASSWORD' } } }] }, env: { X: 's3cret' } },
    {
      rule: 'optional configMapKeyRef to a missing ConfigMap leaves the variable out',
      container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'A', optional: true } } }, { name: 'Y', value: '$(X)' }] },
      env: { Y: '$(X)' },
    },
    { rule: 'optional configMapKeyRef to a missing key', container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'NOPE', optional: true } } }] }, env: {} },
    { rule: 'optional secretKeyRef to a missing Secret', container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'A', optional: true } } }] }, env: {} },
    { rule: 'optional secretKeyRef to a missing key', container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'sec', key: 'NOPE', optional: true } } }] }, env: {} },
    {
      rule: 'envFrom configMapRef takes valid keys (binaryData never)',
      container: { envFrom: [{ configMapRef: { name: 'cfg' } }] },
      env: { A: 'from-cfg', B: 'b', 'dotted.name': 'z' },
    },
    {
      rule: 'envFrom with a prefix (a prefix can make a key valid)',
      container: { envFrom: [{ prefix: 'P_', configMapRef: { name: 'cfg' } }] },
      env: { P_A: 'from-cfg', P_B: 'b', 'P_1starts-with-digit': 'y', P_2nd: 'x', 'P_dotted.name': 'z' },
    },
    { rule: 'envFrom secretRef decodes', container: { envFrom: [{ secretRef: { name: 'sec' } }] }, env: { PASSWORD: 's3cret', A: 'from-secret' } },
    {
      rule: 'a later envFrom replaces an earlier one; env replaces both',
      container: { envFrom: [{ configMapRef: { name: 'cfg' } }, { secretRef: { name: 'sec' } }], env: [{ name: 'B', value: '$(A)!' }] },
      env: { A: 'from-secret', B: 'from-secret!', 'dotted.name': 'z', PASSWORD: 's3cret' },
    },
    { rule: 'optional envFrom of a missing ConfigMap is skipped', container: { envFrom: [{ configMapRef: { name: 'absent', optional: true } }] }, env: {} },
    { rule: 'optional envFrom of a missing Secret is skipped', container: { envFrom: [{ secretRef: { name: 'absent', optional: true } }] }, env: {} },
  ];

  it.each(cases)('$rule', async ({ container, env }) => {
    const resolved = await resolveEnv(context(container));
    expect(Object.fromEntries(resolved.map((e) => [e.key, e.value]))).toEqual(env);
    expect(resolved.map((e) => e.key).sort()).toEqual(Object.keys(env).sort());
  });

  it('keeps the order: envFrom keys first, then env entries as declared', async () => {
    const resolved = await resolveEnv(context({ envFrom: [{ secretRef: { name: 'sec' } }], env: [{ name: 'Z', value: 'z' }, { name: 'PASSWORD', value: 'p' }, { name: 'M', value: 'm' }] }));
    expect(resolved).toEqual([
      { key: 'PASSWORD', value: 'p' },
      { key: 'A', value: 'from-secret' },
      { key: 'Z', value: 'z' },
      { key: 'M', value: 'm' },
    ]);
  });

  it('names the envFrom keys it skipped as invalid variable names', async () => {
    const { skippedKeys } = await resolveEnvReporting(context({ envFrom: [{ configMapRef: { name: 'cfg' } }] }));
    expect(skippedKeys).toEqual(['1starts-with-digit', '2nd']);
  });
});

describe('resolveEnv: missing references fail with CreateContainerConfigError', () => {
  const failures: { rule: string; container: Partial<Container>; message: string }[] = [
    { rule: 'configMapKeyRef to a missing ConfigMap', container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'A' } } }] }, message: 'configmap "absent" not found' },
    { rule: 'configMapKeyRef to a missing key', container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'NOPE' } } }] }, message: "couldn't find key NOPE in ConfigMap default/cfg" },
    { rule: 'configMapKeyRef to a binaryData key', container: { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'BIN' } } }] }, message: "couldn't find key BIN in ConfigMap default/cfg" },
    { rule: 'secretKeyRef to a missing Secret', container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'A' } } }] }, message: 'secret "absent" not found' },
    { rule: 'secretKeyRef to a missing key', container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'sec', key: 'NOPE' } } }] }, message: "couldn't find key NOPE in Secret default/sec" },
    { rule: 'envFrom of a missing ConfigMap', container: { envFrom: [{ configMapRef: { name: 'absent' } }] }, message: 'configmap "absent" not found' },
    { rule: 'envFrom of a missing Secret', container: { envFrom: [{ secretRef: { name: 'absent' } }] }, message: 'secret "absent" not found' },
    { rule: 'an unsupported fieldPath', container: { env: [{ name: 'X', ...field('spec.hostname') }] }, message: 'unsupported fieldPath: spec.hostname' },
    { rule: 'an unsupported resource', container: { env: [{ name: 'X', ...resource('limits.gpu') }] }, message: 'unsupported container resource : limits.gpu' },
    { rule: 'a resourceFieldRef to an unknown container', container: { env: [{ name: 'X', ...resource('limits.cpu', undefined, 'ghost') }] }, message: 'container ghost not found in pod default/web' },
    { rule: 'a malformed valueFrom', container: { env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 7 } } }] }, message: 'env X of container main: fieldRef.fieldPath' },
  ];

  it.each(failures)('$rule', async ({ container, message }) => {
    const error = await resolveEnv(context(container)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'StatusError', reason: 'CreateContainerConfigError' });
    expect((error as Error).message).toContain(message);
  });
});

describe('expandVariables', () => {
  it.each([
    ['$(A)', 'a'],
    ['$(A)$(A)', 'aa'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$a'],
    ['$$', '$'],
    ['$()', '$()'],
    ['$(A', '$(A'],
    ['$', '$'],
    ['x$', 'x$'],
    ['$x', '$x'],
    ['$(EMPTY)', ''],
    ['$(UNKNOWN)', '$(UNKNOWN)'],
    ['(A)$(A)(A)', '(A)a(A)'],
  ])('%s ⇒ %s', (input, output) => {
    expect(expandVariables(input, (name) => ({ A: 'a', EMPTY: '' })[name])).toBe(output);
  });
});
