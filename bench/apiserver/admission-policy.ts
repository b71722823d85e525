// Added latency of a ValidatingAdmissionPolicy with three CEL rules on every Pod create: the same
// pod created in two namespaces of one in-process API server (memory store, Fastify inject, no
// TLS or sockets: the server's own work), one namespace bound by the policy and one not,
// alternating one create each so that load on the shared machine touches both alike. Each create
// is timed twice: wall clock, and this process's CPU time (user + system) across it, which the
// other processes of a busy machine disturb far less (the creates run one at a time in process).
//   npm run bench:admission-policy            (SVC_BENCH_PODS=5000 creates per namespace)
import { performance } from 'node:perf_hooks';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { MemoryStore } from '../../src/storage/index.js';
import { compileExpression, toCel, type ValidatingAdmissionPolicy } from '../../src/api/index.js';

const TOKEN = 'bench-token';
const PODS = Number(process.env['SVC_BENCH_PODS'] ?? 5000);
const WARMUP = 1000;

const app = await buildApp({
  store: new MemoryStore(),
  authenticate: (headers) => {
    if (headers['authorization'] === `Bearer ${TOKEN}`) return { name: 'bench', uid: 'bench', groups: ['system:masters'] };
    throw unauthorized('Unauthorized');
  },
});

async function post(url: string, body: unknown): Promise<number> {
  const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.statusCode;
}

for (const [name, labels] of [['plain', {}], ['policed', { 'vap-bench': 'on' }]] as const) {
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  await post(`/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
}
await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'pod-rules.example.com' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    validations: [
      { expression: "object.spec.containers.all(c, c.image.startsWith('registry.example/'))", message: 'images come from registry.example' },
      { expression: '!has(object.spec.hostNetwork) || !object.spec.hostNetwork', message: 'no host network' },
      { expression: "object.metadata.name.size() <= 63 && has(object.metadata.labels) && 'app' in object.metadata.labels", message: 'pods need an app label' },
    ],
  },
});
await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'pod-rules-binding.example.com' },
  spec: { policyName: 'pod-rules.example.com', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'vap-bench': 'on' } } } },
});

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'bench', tier: 'web' } },
  spec: { containers: [{ name: 'web', image: 'registry.example/web:1.2', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }, { name: 'sidecar', image: 'registry.example/proxy:3' }] },
});

const times: Record<'plain' | 'policed', number[]> = { plain: [], policed: [] };
const cpu: Record<'plain' | 'policed', number[]> = { plain: [], policed: [] };
async function create(namespace: 'plain' | 'policed', i: number, record: boolean) {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await post(`/api/v1/namespaces/${namespace}/pods`, pod(`p-${i}`));
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpuStart);
  if (record) {
    times[namespace].push(wall);
    cpu[namespace].push((used.user + used.system) / 1000);
  }
}
for (let i = 0; i < WARMUP + PODS; i++) {
  const order = i % 2 === 0 ? (['plain', 'policed'] as const) : (['policed', 'plain'] as const);
  for (const namespace of order) await create(namespace, i, i >= WARMUP);
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (value: number) => `${value.toFixed(3)} ms`;
console.log(`pod creates, ${PODS} per namespace after ${WARMUP} warm-up each, alternating; Node ${process.version}`);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
for (const [what, samples] of [['wall clock', times], ['process CPU', cpu]] as const) {
  for (const q of [0.5, 0.9, 0.99]) {
    const plain = quantile(samples.plain, q);
    const policed = quantile(samples.policed, q);
    console.log(`${what} p${Math.round(q * 100)}: without the policy ${ms(plain)}, with it ${ms(policed)}, added ${ms(policed - plain)}`);
  }
  console.log(`${what} mean: without ${ms(mean(samples.plain))}, with ${ms(mean(samples.policed))}, added ${ms(mean(samples.policed) - mean(samples.plain))}`);
}

// The policy's own work, without the server around it: a stored pod as admission sees it (a
// fresh object each time, so its JSON → CEL conversion is not remembered) converted and the three
// rules evaluated, timed alone.
const get = async (url: string) => JSON.parse((await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TOKEN}` } })).body) as unknown;
const stored = await get('/api/v1/namespaces/policed/pods/p-0');
const rules = ((await get('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/pod-rules.example.com')) as ValidatingAdmissionPolicy).spec.validations ?? [];
// Compiled as admission compiles them (once per policy version).
const programs = rules.map((rule) => {
  const compiled = compileExpression(rule.expression);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.program;
});
const direct: number[] = [];
for (let i = 0; i < WARMUP + PODS * 4; i++) {
  const object = structuredClone(stored);
  const start = performance.now();
  const context = { object: toCel(object), oldObject: null, request: null, params: null, namespaceObject: null, authorizer: null, variables: {} };
  const passed = programs.every((program) => program(context) === true);
  const took = performance.now() - start;
  if (!passed) throw new Error('the pod fails the policy');
  if (i >= WARMUP) direct.push(took);
}
console.log(
  `the policy alone (JSON → CEL of the pod + three rules), ${direct.length} runs: p50 ${ms(quantile(direct, 0.5))}, p90 ${ms(quantile(direct, 0.9))}, p99 ${ms(quantile(direct, 0.99))}, mean ${ms(mean(direct))}`,
);
await app.close();
