// What shaping and encoding one CRI request costs (issue #26): the in-process runtime of hollow
// nodes shaped every request through its protobuf type (`shapeMessage`; now only with
// `--shape-cri-requests`, and its answers still), the daemon encodes it for containerd
// (`encodeMessage`). A CreateContainer request as the agent builds one (12 env vars,
// 3 mounts, labels, 64-bit resources), CPU µs per call (process.cpuUsage over N calls):
//   node --import tsx bench/nodeagent/cri-shape.ts [N]
import { messageType, shapeMessage, encodeMessage } from '../../src/nodeagent/cri/index.js';
const type = messageType('CreateContainerRequest');
const req = { podSandboxId: 'a'.repeat(64), config: { metadata: { name: 'app', attempt: 0 }, image: { image: 'registry.example/pause:1', annotations: {}, userSpecifiedImage: '', runtimeHandler: '' }, command: [], args: [], workingDir: '', envs: Array.from({ length: 12 }, (_, i) => ({ key: `K${i}`, value: `v${i}` })), mounts: Array.from({ length: 3 }, (_, i) => ({ containerPath: `/c/${i}`, hostPath: `/h/${i}`, readonly: true, selinuxRelabel: false, propagation: 'PROPAGATION_PRIVATE' })), labels: { a: 'b', c: 'd', e: 'f' }, annotations: { x: 'y', hash: '0123456789abcdef' }, logPath: 'app/0.log', linux: { resources: { cpuPeriod: 100000n, cpuQuota: 0n, cpuShares: 10n, memoryLimitInBytes: 0n, oomScoreAdj: 999n }, securityContext: { runAsUser: { value: 0n }, namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } } }, sandboxConfig: { metadata: { name: 'p', namespace: 'default', uid: 'u', attempt: 0 }, hostname: 'p', logDirectory: '/x', labels: { a: 'b' }, annotations: {} } };
const N = Number(process.argv[2] ?? 20000);
for (let i = 0; i < 2000; i++) shapeMessage(type, req);
const t0 = process.cpuUsage(); for (let i = 0; i < N; i++) shapeMessage(type, req); const t1 = process.cpuUsage(t0);
const t2 = process.cpuUsage(); for (let i = 0; i < N; i++) encodeMessage(type, req); const t3 = process.cpuUsage(t2);
console.log(JSON.stringify({ shapeUs: ((t1.user + t1.system) / N).toFixed(1), encodeUs: ((t3.user + t3.system) / N).toFixed(1) }));
