/**
 * Exec probes and exec lifecycle handlers in a real busybox container, through CRI ExecSync on a
 * private containerd (test/support/containerd.ts); and an httpGet probe to the pod's own IP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import { BUSYBOX_IMAGE, ProbeManager, runLifecycleHandler, runProbe, type Input, type PodSandboxConfig, type ProbeResult, type ProbeTarget } from '../../../src/nodeagent/index.js';
import { netnsPathOf, startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { eventually, podWith, settle, SteppedClock } from './support.js';

let containerd: RunningContainerd;
let target: ProbeTarget;
let netnsPath: string | undefined;

beforeAll(async () => {
  containerd = await startContainerd();
  const { cri } = containerd;
  const config: Input<PodSandboxConfig> = {
    metadata: { name: 'probed', uid: 'uid-probed', namespace: 'default', attempt: 0 },
    hostname: 'probed',
    logDirectory: join(containerd.logRoot, 'default_probed'),
    linux: {},
  };
  const podSandboxId = (await cri.runPodSandbox({ config })).podSandboxId;
  const sandbox = await cri.podSandboxStatus({ podSandboxId, verbose: true });
  const podIP = sandbox.status?.network?.ip;
  netnsPath = netnsPathOf(sandbox.info);
  const containerId = (
    await cri.createContainer({
      podSandboxId,
      sandboxConfig: config,
      config: {
        metadata: { name: 'main', attempt: 0 },
        image: { image: BUSYBOX_IMAGE },
        command: ['sh', '-c', 'touch /tmp/healthy; mkdir -p /www && echo up > /www/index.html && exec httpd -f -p 8080 -h /www'],
        logPath: 'main/0.log',
      },
    })
  ).containerId;
  await cri.startContainer({ containerId });
  const pod = podWith({ ports: [{ name: 'http', containerPort: 8080 }] }, { name: 'probed', uid: 'uid-probed' });
  target = { pod, container: pod.spec.containers[0]!, containerId, podIP };
}, 180_000);

afterAll(async () => {
  await containerd?.stop();
  // Only this sandbox's namespace: other suites on the machine may be creating their own.
  expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], containerdRunning: false, bridgePresent: false });
  expect(netnsPath).toBeDefined();
  expect(existsSync(netnsPath!)).toBe(false);
}, 120_000);

describe('exec probes', () => {
  it('exit code 0 is success, with the output as the message', async () => {
    const outcome = await runProbe({ exec: { command: ['sh', '-c', 'echo fine; echo warn >&2'] } }, target, { cri: containerd.cri, timeoutSeconds: 5 });
    expect(outcome).toEqual({ result: 'success', message: 'fine\nwarn' });
  });

  it('another exit code is failure; the output is the message, or the code when it printed nothing', async () => {
    await expect(runProbe({ exec: { command: ['sh', '-c', 'echo not ready; exit 1'] } }, target, { cri: containerd.cri, timeoutSeconds: 5 })).resolves.toEqual({ result: 'failure', message: 'not ready' });
    await expect(runProbe({ exec: { command: ['false'] } }, target, { cri: containerd.cri, timeoutSeconds: 5 })).resolves.toEqual({ result: 'failure', message: 'command ["false"] exited with 1' });
  });

  it('a command running past timeoutSeconds is failure', async () => {
    const outcome = await runProbe({ exec: { command: ['sleep', '30'] } }, target, { cri: containerd.cri, timeoutSeconds: 1 });
    expect(outcome.result).toBe('failure');
    expect(outcome.message).toMatch(/timed out/);
  });

  it('a liveness exec probe turns to failure when the file it checks goes away', async () => {
    const clock = new SteppedClock();
    const manager = new ProbeManager({ cri: containerd.cri, scheduler: clock });
    const results: ProbeResult[] = [];
    let attempts = 0;
    manager.results$.subscribe((r) => results.push(r));
    manager.attempts$.subscribe(() => attempts++);
    const pod = podWith({ livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 2, failureThreshold: 2 }, readinessProbe: { httpGet: { port: 'http' }, periodSeconds: 2 }, ports: [{ name: 'http', containerPort: 8080 }] }, { uid: 'uid-probed' });
    try {
      manager.start({ ...target, pod, container: pod.spec.containers[0]! });
      clock.advanceTo(0);
      await eventually('first attempts', () => attempts === 2);
      expect(manager.ready('uid-probed', 'main')).toBe(true);
      expect(results).toMatchObject([{ kind: 'readiness', result: 'success' }]);
      await containerd.cri.execSync({ containerId: target.containerId, cmd: ['rm', '/tmp/healthy'], timeout: 10n });
      clock.advanceTo(2_000);
      await eventually('second attempts', () => attempts === 4);
      expect(results).toHaveLength(1);
      clock.advanceTo(4_000);
      await eventually('third attempts', () => attempts === 6);
      expect(results[1]).toMatchObject({ kind: 'liveness', result: 'failure', containerId: target.containerId });
      expect(results[1]?.message).toMatch(/No such file/);
    } finally {
      manager.close();
      await containerd.cri.execSync({ containerId: target.containerId, cmd: ['touch', '/tmp/healthy'], timeout: 10n });
    }
  });

  it("an httpGet probe reaches the container on the pod's IP by port name", async () => {
    const pod = podWith({ ports: [{ name: 'http', containerPort: 8080 }] });
    await expect(runProbe({ httpGet: { port: 'http', path: '/index.html' } }, { ...target, container: pod.spec.containers[0]! }, { cri: containerd.cri, timeoutSeconds: 5 })).resolves.toEqual({
      result: 'success',
      message: 'up\n',
    });
  });
});

describe('exec lifecycle handlers', () => {
  it('a postStart exec runs in the container', async () => {
    await runLifecycleHandler({ exec: { command: ['sh', '-c', 'echo started > /tmp/post-start'] } }, target, { cri: containerd.cri, timeoutSeconds: 10, hook: 'postStart' });
    const read = await containerd.cri.execSync({ containerId: target.containerId, cmd: ['cat', '/tmp/post-start'], timeout: 10n });
    expect(Buffer.from(read.stdout).toString()).toBe('started\n');
  });

  it('a failing postStart exec is FailedPostStartHook naming the command, container and output', async () => {
    const run = runLifecycleHandler({ exec: { command: ['sh', '-c', 'echo cannot start; exit 3'] } }, target, { cri: containerd.cri, timeoutSeconds: 10, hook: 'postStart' });
    await expect(run).rejects.toSatisfy((e) => isStatusError(e, 'FailedPostStartHook'));
    await expect(run).rejects.toThrow('PostStartHook exec ["sh","-c","echo cannot start; exit 3"] for container "main" in pod "default/probed" failed: cannot start');
  });

  it('a preStop exec past its timeout is FailedPreStopHook saying so', async () => {
    const run = runLifecycleHandler({ exec: { command: ['sleep', '30'] } }, target, { cri: containerd.cri, timeoutSeconds: 1, hook: 'preStop' });
    await expect(run).rejects.toSatisfy((e) => isStatusError(e, 'FailedPreStopHook') && /timed out/.test((e as Error).message));
    await settle(10);
  });
});
