/**
 * The pure parts of the pod workers, rule by rule: sandbox and container configs, the crash-loop
 * back-off on an injected clock, QoS classes and the pod status from runtime states.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { podQosClass, type Container, type Pod } from '../../../src/api/index.js';
import type { ContainerStatus } from '../../../src/nodeagent/index.js';
import {
  computePodStatus,
  containerConfig,
  containerHash,
  containerResources,
  CrashLoopBackoff,
  dnsConfigOf,
  sandboxConfig,
  type PodRuntime,
  type RuntimeContainer,
} from '../../../src/nodeagent/index.js';

const resolv = join(mkdtempSync(join(tmpdir(), 'svc-resolv-')), 'resolv.conf');
writeFileSync(resolv, '# host resolver\nnameserver 192.0.2.53\nsearch corp.example\noptions ndots:2 timeout:1\n');
const sandboxOptions = { podLogsDir: '/var/log/pods', clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: resolv };
const containerOptions = { nodeMemoryBytes: 8 * 2 ** 30 };

const pod = (spec: Partial<Pod['spec']> = {}, containers: Container[] = [{ name: 'c', image: 'busybox' }]): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team', uid: 'u-1', labels: { app: 'web' }, annotations: { note: 'n' } },
  spec: { containers, ...spec },
});

describe('sandbox config', () => {
  it('carries the contract: metadata, pod labels, annotations and the log directory', () => {
    const config = sandboxConfig(pod(), 2, sandboxOptions);
    expect(config.metadata).toEqual({ name: 'web', namespace: 'team', uid: 'u-1', attempt: 2 });
    expect(config.labels).toEqual({ app: 'web', 'svc.io/pod.name': 'web', 'svc.io/pod.namespace': 'team', 'svc.io/pod.uid': 'u-1' });
    expect(config.annotations).toEqual({ note: 'n' });
    expect(config.logDirectory).toBe('/var/log/pods/team_web_u-1');
    expect(config.hostname).toBe('web');
  });

  it('hostname: spec.hostname wins; empty with the host network', () => {
    expect(sandboxConfig(pod({ hostname: 'box' }), 0, sandboxOptions).hostname).toBe('box');
    expect(sandboxConfig(pod({ hostNetwork: true }), 0, sandboxOptions).hostname).toBe('');
  });

  it('namespaces: host network, PID and IPC; a shared process namespace is the pod\'s', () => {
    const ns = (spec: Partial<Pod['spec']>) => sandboxConfig(pod(spec), 0, sandboxOptions).linux?.securityContext?.namespaceOptions;
    expect(ns({})).toMatchObject({ network: 'POD', pid: 'CONTAINER', ipc: 'POD' });
    expect(ns({ hostNetwork: true, hostPID: true, hostIPC: true })).toMatchObject({ network: 'NODE', pid: 'NODE', ipc: 'NODE' });
    expect(ns({ shareProcessNamespace: true })).toMatchObject({ pid: 'POD' });
  });

  it('hostPort mappings, sysctls, pod-level user and groups, cgroup parent', () => {
    const config = sandboxConfig(
      pod({ securityContext: { runAsUser: 1000, runAsGroup: 2000, supplementalGroups: [3000], sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] } }, [
        { name: 'c', image: 'busybox', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 53, protocol: 'UDP', hostPort: 5353, hostIP: '127.0.0.1' }, { containerPort: 9090 }] },
      ]),
      0,
      { ...sandboxOptions, cgroupParent: '/kubepods/pod-u-1' },
    );
    expect(config.portMappings).toEqual([
      { protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' },
      { protocol: 'UDP', containerPort: 53, hostPort: 5353, hostIp: '127.0.0.1' },
    ]);
    expect(config.linux?.sysctls).toEqual({ 'net.ipv4.ip_unprivileged_port_start': '0' });
    expect(config.linux?.securityContext).toMatchObject({ runAsUser: { value: 1000 }, runAsGroup: { value: 2000 }, supplementalGroups: [3000] });
    expect(config.linux?.cgroupParent).toBe('/kubepods/pod-u-1');
  });

  it('DNS by policy: ClusterFirst, host network falling back, ClusterFirstWithHostNet, Default, None, dnsConfig merged', () => {
    expect(dnsConfigOf(pod(), sandboxOptions)).toEqual({
      servers: ['10.96.0.10'],
      searches: ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example'],
      options: ['ndots:5'],
    });
    const host = { servers: ['192.0.2.53'], searches: ['corp.example'], options: ['ndots:2', 'timeout:1'] };
    expect(dnsConfigOf(pod({ hostNetwork: true }), sandboxOptions)).toEqual(host);
    expect(dnsConfigOf(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), sandboxOptions).servers).toEqual(['10.96.0.10']);
    expect(dnsConfigOf(pod({ dnsPolicy: 'Default' }), sandboxOptions)).toEqual(host);
    expect(dnsConfigOf(pod(), { ...sandboxOptions, clusterDNS: [] })).toEqual(host);
    expect(
      dnsConfigOf(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '1' }, { name: 'edns0' }] } }), sandboxOptions),
    ).toEqual({ servers: ['1.1.1.1'], searches: ['a.example'], options: ['ndots:1', 'edns0'] });
    expect(dnsConfigOf(pod({ dnsConfig: { options: [{ name: 'ndots', value: '2' }] } }), sandboxOptions).options).toEqual(['ndots:2']);
  });
});

describe('container config', () => {
  const inputs = { restartCount: 3, imageRef: 'sha256:abc', envs: [{ key: 'A', value: '1' }], mounts: [{ containerPath: '/data', hostPath: '/tmp/d' }] };

  it('carries the contract: metadata, labels, annotations, log path; command, args, workingDir, env, mounts, stdin/tty', () => {
    const container: Container = { name: 'c', image: 'busybox', command: ['sh'], args: ['-c', 'true'], workingDir: '/w', stdin: true, tty: true };
    const config = containerConfig(pod({ terminationGracePeriodSeconds: 45 }, [container]), container, inputs, containerOptions);
    expect(config.metadata).toEqual({ name: 'c', attempt: 3 });
    expect(config.image).toEqual({ image: 'sha256:abc', userSpecifiedImage: 'busybox' });
    expect(config.labels).toEqual({ 'svc.io/pod.name': 'web', 'svc.io/pod.namespace': 'team', 'svc.io/pod.uid': 'u-1', 'svc.io/container.name': 'c' });
    expect(config.annotations).toEqual({ 'svc.io/container.restartCount': '3', 'svc.io/container.hash': containerHash(container), 'svc.io/pod.terminationGracePeriod': '45' });
    expect(config.logPath).toBe('c/3.log');
    expect(config).toMatchObject({ command: ['sh'], args: ['-c', 'true'], workingDir: '/w', envs: inputs.envs, mounts: inputs.mounts, stdin: true, tty: true });
  });

  it('the spec hash ignores key order and changes with the spec', () => {
    expect(containerHash({ name: 'c', image: 'a', command: ['x'] })).toBe(containerHash({ command: ['x'], image: 'a', name: 'c' }));
    expect(containerHash({ name: 'c', image: 'a' })).not.toBe(containerHash({ name: 'c', image: 'b' }));
  });

  it("the spec hash follows a container that changes, and is the same for a frozen one (the sources' pods) at every sync", () => {
    const mutable: Container = { name: 'c', image: 'a' };
    const before = containerHash(mutable);
    mutable.image = 'b';
    expect(containerHash(mutable)).toBe(containerHash({ name: 'c', image: 'b' }));
    expect(containerHash(mutable)).not.toBe(before);
    const frozen = Object.freeze({ name: 'c', image: 'a' });
    expect(containerHash(frozen)).toBe(before);
    expect(containerHash(frozen)).toBe(before);
  });

  it('resources: shares from the request, CFS quota from the limit, memory limit, OOM score by QoS', () => {
    const burstable: Container = { name: 'c', image: 'i', resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '500m', memory: '2Gi' } } };
    expect(containerResources(pod({}, [burstable]), burstable, containerOptions)).toEqual({
      cpuShares: 256,
      cpuPeriod: 100_000,
      cpuQuota: 50_000,
      memoryLimitInBytes: 2 * 2 ** 30,
      oomScoreAdj: 1000 - Math.floor(1000 / 8),
    });
    const guaranteed: Container = { name: 'c', image: 'i', resources: { limits: { cpu: '2', memory: '1Gi' } } };
    expect(containerResources(pod({}, [guaranteed]), guaranteed, containerOptions)).toMatchObject({ cpuShares: 2048, cpuQuota: 200_000, oomScoreAdj: -997 });
    const bestEffort: Container = { name: 'c', image: 'i' };
    expect(containerResources(pod({}, [bestEffort]), bestEffort, containerOptions)).toEqual({ cpuShares: 2, oomScoreAdj: 1000 });
    expect(containerResources(pod({}, [guaranteed]), guaranteed, { ...containerOptions, cpuCfsQuota: false })).not.toHaveProperty('cpuQuota');
    const tiny: Container = { name: 'c', image: 'i', resources: { limits: { cpu: '1m' } } };
    expect(containerResources(pod({}, [tiny]), tiny, { ...containerOptions, cpuCfsQuotaPeriodUs: 50_000 })).toMatchObject({ cpuPeriod: 50_000, cpuQuota: 1000 });
  });

  it('security: pod user and groups overridden by the container, privileged, read-only root, capabilities, no new privileges', () => {
    const container: Container = {
      name: 'c',
      image: 'i',
      securityContext: { runAsUser: 1001, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } },
    };
    const config = containerConfig(pod({ securityContext: { runAsUser: 1000, runAsGroup: 2000 } }, [container]), container, inputs, containerOptions);
    expect(config.linux?.securityContext).toMatchObject({
      runAsUser: { value: 1001 },
      runAsGroup: { value: 2000 },
      readonlyRootfs: true,
      noNewPrivs: true,
      privileged: false,
      capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] },
    });
    expect(config.linux?.securityContext?.maskedPaths).toContain('/proc/kcore');
    const privileged: Container = { name: 'c', image: 'i', securityContext: { privileged: true } };
    expect(containerConfig(pod({}, [privileged]), privileged, inputs, containerOptions).linux?.securityContext).toMatchObject({ privileged: true, maskedPaths: [], readonlyPaths: [] });
  });

  it('runAsNonRoot: refuses uid 0, a root image user and a non-numeric one; accepts a non-root uid', () => {
    const nonRoot = (securityContext: Record<string, unknown>): Container => ({ name: 'c', image: 'i', securityContext: { runAsNonRoot: true, ...securityContext } });
    const build = (c: Container, imageUser?: { uid?: number; username?: string }) => () => containerConfig(pod({}, [c]), c, { ...inputs, imageUser }, containerOptions);
    const reasonOf = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as { waitingReason?: string }).waitingReason;
      }
      return 'none';
    };
    expect(reasonOf(build(nonRoot({ runAsUser: 0 })))).toBe('CreateContainerConfigError');
    expect(reasonOf(build(nonRoot({}), { uid: 0 }))).toBe('CreateContainerConfigError');
    expect(reasonOf(build(nonRoot({}), { username: 'nobody' }))).toBe('CreateContainerConfigError');
    expect(reasonOf(build(nonRoot({}), { username: '65534' }))).toBe('none');
    expect(reasonOf(build(nonRoot({ runAsUser: 1000 }), { uid: 0 }))).toBe('none');
  });
});

describe('QoS class', () => {
  it('BestEffort, Burstable, Guaranteed', () => {
    expect(podQosClass(pod().spec)).toBe('BestEffort');
    expect(podQosClass(pod({}, [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }]).spec)).toBe('Burstable');
    expect(podQosClass(pod({}, [{ name: 'c', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }]).spec)).toBe('Guaranteed');
    expect(podQosClass(pod({}, [{ name: 'c', image: 'i', resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }]).spec)).toBe('Burstable');
  });
});

describe('crash-loop back-off', () => {
  it('restarts at once the first time, then waits 10 s doubling to 5 min, and starts over after 10 min of running', () => {
    let now = 1_000_000;
    const backoff = new CrashLoopBackoff({ clock: () => now });
    const key = 'u/c';
    expect(backoff.remaining(key, now)).toBe(0);
    backoff.restarted(key);
    expect(backoff.remaining(key, now)).toBe(10_000);
    now += 4000;
    // It exited a second ago: 9 s of its 10 s are left.
    expect(backoff.remaining(key, now - 1000)).toBe(9000);
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      now += 100_000; // inside the reset window each time
      backoff.restarted(key);
      delays.push(backoff.delayOf(key));
    }
    expect(delays).toEqual([20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    now += 600_000;
    expect(backoff.remaining(key, now)).toBe(0);
    backoff.restarted(key);
    expect(backoff.delayOf(key)).toBe(10_000);
  });

  it('forgets a pod\'s keys', () => {
    const backoff = new CrashLoopBackoff({ clock: () => 0 });
    backoff.restarted('u/a');
    backoff.restarted('v/a');
    backoff.forgetPod('u');
    expect(backoff.delayOf('u/a')).toBe(0);
    expect(backoff.delayOf('v/a')).toBe(10_000);
  });
});

describe('pod status from the runtime', () => {
  const status = (state: ContainerStatus['state'], exitCode = 0, extra: Partial<ContainerStatus> = {}): ContainerStatus =>
    ({ id: 'x', state, exitCode, startedAt: 1_700_000_000_000_000_000n, finishedAt: state === 'CONTAINER_EXITED' ? 1_700_000_001_000_000_000n : 0n, imageRef: 'sha256:img', reason: '', message: '', annotations: {}, ...extra }) as ContainerStatus;
  const instance = (name: string, restartCount: number, state: ContainerStatus['state'], exitCode = 0, sandboxId = 's1'): RuntimeContainer => ({
    id: `${name}-${restartCount}`,
    sandboxId,
    name,
    restartCount,
    hash: '',
    state,
    status: status(state, exitCode),
  });
  const runtime = (containers: RuntimeContainer[], ready = true): PodRuntime => ({
    sandboxes: [],
    sandbox: { id: 's1', state: ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY', network: { ip: '10.1.0.5', additionalIps: [] } } as unknown as PodRuntime['sandbox'],
    containers,
  });
  const compute = (p: Pod, containers: RuntimeContainer[], waiting = new Map<string, { reason: string }>()) =>
    computePodStatus({ pod: p, runtime: runtime(containers), waiting, previous: undefined, hostIPs: ['192.0.2.1'], runtimeName: 'containerd', now: new Date('2026-01-01T00:00:00Z') });

  it('phase by the kubelet\'s rules', () => {
    const two = (policy: 'Always' | 'OnFailure' | 'Never') => pod({ restartPolicy: policy }, [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }]);
    expect(compute(two('Always'), []).phase).toBe('Pending');
    expect(compute(two('Always'), [instance('a', 0, 'CONTAINER_RUNNING')]).phase).toBe('Pending');
    expect(compute(two('Always'), [instance('a', 0, 'CONTAINER_RUNNING'), instance('b', 0, 'CONTAINER_EXITED', 1)]).phase).toBe('Running');
    expect(compute(two('Always'), [instance('a', 0, 'CONTAINER_EXITED', 0), instance('b', 0, 'CONTAINER_EXITED', 0)]).phase).toBe('Running');
    expect(compute(two('Never'), [instance('a', 0, 'CONTAINER_EXITED', 0), instance('b', 0, 'CONTAINER_EXITED', 0)]).phase).toBe('Succeeded');
    expect(compute(two('Never'), [instance('a', 0, 'CONTAINER_EXITED', 0), instance('b', 0, 'CONTAINER_EXITED', 2)]).phase).toBe('Failed');
    expect(compute(two('OnFailure'), [instance('a', 0, 'CONTAINER_EXITED', 0), instance('b', 0, 'CONTAINER_EXITED', 2)]).phase).toBe('Running');
    expect(compute(two('OnFailure'), [instance('a', 0, 'CONTAINER_EXITED', 0), instance('b', 0, 'CONTAINER_EXITED', 0)]).phase).toBe('Succeeded');
    const withInit = pod({ restartPolicy: 'Never', initContainers: [{ name: 'i', image: 'i' }] });
    expect(compute(withInit, [instance('i', 0, 'CONTAINER_EXITED', 1)]).phase).toBe('Failed');
    expect(compute(withInit, [instance('i', 0, 'CONTAINER_RUNNING')]).phase).toBe('Pending');
  });

  it('container states: running, waiting with the sync\'s reason and the last termination, terminated; restart counts and IDs', () => {
    const p = pod({}, [{ name: 'a', image: 'busybox' }]);
    const crashing = compute(p, [instance('a', 0, 'CONTAINER_EXITED', 1), instance('a', 1, 'CONTAINER_EXITED', 1)], new Map([['a', { reason: 'CrashLoopBackOff' }]]));
    expect(crashing.containerStatuses?.[0]).toMatchObject({
      name: 'a',
      image: 'busybox',
      imageID: 'sha256:img',
      containerID: 'containerd://a-1',
      restartCount: 1,
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 1, reason: 'Error' } },
    });
    const running = compute(p, [instance('a', 0, 'CONTAINER_EXITED', 137), instance('a', 1, 'CONTAINER_RUNNING')]);
    expect(running.containerStatuses?.[0]).toMatchObject({ restartCount: 1, ready: true, started: true, state: { running: {} }, lastState: { terminated: { exitCode: 137 } } });
    expect(running.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ]);
    expect(running).toMatchObject({ podIP: '10.1.0.5', podIPs: [{ ip: '10.1.0.5' }], hostIP: '192.0.2.1', qosClass: 'BestEffort', startTime: '2026-01-01T00:00:00Z' });
  });

  it('keeps a terminal phase, transition times of unchanged conditions and the start time', () => {
    const p = pod({ restartPolicy: 'Never' }, [{ name: 'a', image: 'i' }]);
    const first = compute(p, [instance('a', 0, 'CONTAINER_EXITED', 0)]);
    expect(first.phase).toBe('Succeeded');
    const later = computePodStatus({ pod: p, runtime: runtime([]), waiting: new Map(), previous: first, hostIPs: ['192.0.2.1'], runtimeName: 'containerd', now: new Date('2026-02-01T00:00:00Z') });
    expect(later.phase).toBe('Succeeded');
    expect(later.startTime).toBe(first.startTime);
    expect(later.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });
});
