/**
 * The CRI client against a real containerd (test/support/containerd.ts): images imported from
 * svc's own archives, a pod sandbox on a bridge network reachable from the host, containers,
 * exec, streaming URLs, and a teardown that leaves nothing behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSYBOX_IMAGE, GrpcStatus, PAUSE_IMAGE, isCriError, type Input, type PodSandboxConfig } from '../../../src/nodeagent/index.js';
import { netnsPathOf, startContainerd, type RunningContainerd } from '../../support/containerd.js';

let containerd: RunningContainerd;
let stopped = false;

beforeAll(async () => {
  containerd = await startContainerd();
});

afterAll(async () => {
  if (!stopped) await containerd?.stop();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value; fails with `what` if it never does. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, attempts = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`never happened: ${what}`);
}

function ipv4InCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const toInt = (a: string) => a.split('.').reduce((n, o) => (n << 8) + Number(o), 0) >>> 0;
  const mask = bits === '0' ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((toInt(ip) & mask) >>> 0) === ((toInt(base) & mask) >>> 0);
}

function sandboxConfig(name: string): Input<PodSandboxConfig> {
  return {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: join(containerd.logRoot, `default_${name}`),
    labels: { 'svc.io/test': name },
    annotations: { 'svc.io/note': 'kept verbatim' },
    linux: {},
  };
}

describe('runtime', () => {
  it('Version names containerd and the v1 runtime API', async () => {
    const version = await containerd.cri.version();
    expect(version.runtimeName).toBe('containerd');
    expect(version.runtimeApiVersion).toBe('v1');
    expect(version.runtimeVersion).not.toBe('');
  });

  it('Status reports the runtime and the CNI network ready', async () => {
    const status = await containerd.cri.status({ verbose: false });
    const conditions = Object.fromEntries((status.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(conditions).toMatchObject({ RuntimeReady: true, NetworkReady: true });
  });

  it('UpdateRuntimeConfig accepts the node pod CIDR', async () => {
    await expect(containerd.cri.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: containerd.podCidr } } })).resolves.toEqual({});
  });
});

describe('images', () => {
  it('lists the imported busybox and pause images under their svc.local names and config digests', async () => {
    const { images } = await containerd.cri.listImages();
    const byTag = new Map(images.flatMap((image) => image.repoTags.map((tag) => [tag, image] as const)));
    expect(byTag.get(BUSYBOX_IMAGE)?.id).toBe(containerd.images.busybox.configDigest);
    expect(byTag.get(PAUSE_IMAGE)?.id).toBe(containerd.images.pause.configDigest);
    expect(byTag.get(BUSYBOX_IMAGE)?.size).toBeGreaterThan(0n);
  });

  it('ImageStatus finds an image by tag and answers null for one the node lacks', async () => {
    const found = await containerd.cri.imageStatus({ image: { image: BUSYBOX_IMAGE } });
    expect(found.image?.repoDigests.some((d) => d.endsWith(containerd.images.busybox.manifestDigest))).toBe(true);
    const missing = await containerd.cri.imageStatus({ image: { image: 'svc.local/not-there:1' } });
    expect(missing.image).toBeNull();
  });

  it('PullImage of an image no registry serves fails with a CriError, not a hang', async () => {
    const pulled = containerd.cri.pullImage({ image: { image: 'svc.local/not-there:1' } }, { timeoutMs: 30_000 });
    await expect(pulled).rejects.toSatisfy((e) => isCriError(e) && e.grpcCode !== GrpcStatus.OK);
  });

  it('ImageFsInfo reports the image filesystem', async () => {
    const info = await containerd.cri.imageFsInfo();
    expect(info.imageFilesystems.length).toBeGreaterThan(0);
    expect(info.imageFilesystems[0]?.fsId?.mountpoint).toContain(containerd.dir);
  });
});

describe('a pod: sandbox, containers, exec, streaming, teardown', () => {
  let pod: Input<PodSandboxConfig>;
  let sandboxId = '';
  let podIp = '';
  let netnsPath: string | undefined;
  let mainId = '';
  let webId = '';

  it('RunPodSandbox starts a ready sandbox with an IP from the pod CIDR', async () => {
    pod = sandboxConfig('web');
    sandboxId = (await containerd.cri.runPodSandbox({ config: pod })).podSandboxId;
    const status = await containerd.cri.podSandboxStatus({ podSandboxId: sandboxId, verbose: true });
    expect(status.status?.state).toBe('SANDBOX_READY');
    expect(status.status?.metadata).toMatchObject({ name: 'web', namespace: 'default', uid: 'uid-web' });
    expect(status.status?.annotations).toEqual({ 'svc.io/note': 'kept verbatim' });
    expect(status.status?.createdAt).toBeGreaterThan(0n);
    podIp = status.status?.network?.ip ?? '';
    expect(ipv4InCidr(podIp, containerd.podCidr)).toBe(true);
    netnsPath = netnsPathOf(status.info);
    expect(netnsPath && existsSync(netnsPath)).toBe(true);
  });

  it('CreateContainer and StartContainer run `sh -c "echo hi; sleep 3600"`, and ContainerStatus shows it running', async () => {
    mainId = (
      await containerd.cri.createContainer({
        podSandboxId: sandboxId,
        sandboxConfig: pod,
        config: {
          metadata: { name: 'main', attempt: 0 },
          image: { image: BUSYBOX_IMAGE },
          command: ['sh', '-c', 'echo hi; sleep 3600'],
          envs: [{ key: 'GREETING', value: 'hello from env' }],
          logPath: 'main/0.log',
          labels: { 'svc.io/container': 'main' },
        },
      })
    ).containerId;
    const created = await containerd.cri.containerStatus({ containerId: mainId });
    expect(created.status?.state).toBe('CONTAINER_CREATED');
    await containerd.cri.startContainer({ containerId: mainId });
    const status = await containerd.cri.containerStatus({ containerId: mainId });
    expect(status.status?.state).toBe('CONTAINER_RUNNING');
    expect(status.status?.startedAt).toBeGreaterThan(0n);
    expect(status.status?.logPath).toBe(join(containerd.logRoot, 'default_web', 'main/0.log'));
  });

  it('the container log file holds what it printed, in CRI log format', async () => {
    const logPath = join(containerd.logRoot, 'default_web', 'main/0.log');
    const log = await eventually('"hi" in the log', () => {
      const text = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
      return text.includes('hi') ? text : undefined;
    });
    expect(log).toMatch(/^\S+ stdout F hi$/m);
  });

  it('ExecSync returns stdout, stderr and the exit code', async () => {
    const result = await containerd.cri.execSync({ containerId: mainId, cmd: ['sh', '-c', 'echo "$GREETING"; echo oops >&2; exit 3'], timeout: 30 });
    expect(Buffer.from(result.stdout).toString()).toBe('hello from env\n');
    expect(Buffer.from(result.stderr).toString()).toBe('oops\n');
    expect(result.exitCode).toBe(3);
  });

  it('the sandbox IP is reachable from the host: a second container serves HTTP on it', async () => {
    webId = (
      await containerd.cri.createContainer({
        podSandboxId: sandboxId,
        sandboxConfig: pod,
        config: {
          metadata: { name: 'httpd' },
          image: { image: BUSYBOX_IMAGE },
          command: ['sh', '-c', 'mkdir -p /www && echo served-from-the-pod > /www/index.html && exec httpd -f -p 8080 -h /www'],
          logPath: 'httpd/0.log',
        },
      })
    ).containerId;
    await containerd.cri.startContainer({ containerId: webId });
    const body = await eventually('an HTTP answer from the pod IP', async () => {
      try {
        const response = await fetch(`http://${podIp}:8080/index.html`, { signal: AbortSignal.timeout(2000) });
        return await response.text();
      } catch {
        return undefined;
      }
    });
    expect(body).toBe('served-from-the-pod\n');
  });

  it('ListContainers filters by sandbox and label; ListContainerStats covers the running containers', async () => {
    const all = await containerd.cri.listContainers({ filter: { podSandboxId: sandboxId } });
    expect(all.containers.map((c) => c.metadata?.name).sort()).toEqual(['httpd', 'main']);
    const labelled = await containerd.cri.listContainers({ filter: { labelSelector: { 'svc.io/container': 'main' } } });
    expect(labelled.containers.map((c) => c.id)).toEqual([mainId]);
    const stats = await containerd.cri.listContainerStats({ filter: { podSandboxId: sandboxId } });
    expect(stats.stats.map((s) => s.attributes?.id).sort()).toEqual([mainId, webId].sort());
    const one = await containerd.cri.containerStats({ containerId: mainId });
    expect(one.stats?.attributes?.metadata?.name).toBe('main');
  });

  it('ListPodSandbox filters by label and state', async () => {
    const ready = await containerd.cri.listPodSandbox({ filter: { labelSelector: { 'svc.io/test': 'web' }, state: { state: 'SANDBOX_READY' } } });
    expect(ready.items.map((s) => s.id)).toEqual([sandboxId]);
    const notReady = await containerd.cri.listPodSandbox({ filter: { state: { state: 'SANDBOX_NOTREADY' } } });
    expect(notReady.items).toEqual([]);
  });

  it('Exec, Attach and PortForward return URLs on containerd streaming server', async () => {
    const exec = await containerd.cri.exec({ containerId: mainId, cmd: ['sh'], stdout: true, stderr: true });
    const attach = await containerd.cri.attach({ containerId: mainId, stdout: true, stderr: true });
    const forward = await containerd.cri.portForward({ podSandboxId: sandboxId, port: [8080] });
    expect(exec.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/exec\/[\w-]+$/);
    expect(attach.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/attach\/[\w-]+$/);
    expect(forward.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portforward\/[\w-]+$/);
    // The streaming server is listening there; speaking its upgrade protocol is the node agent's later work.
    const origin = new URL(exec.url).origin;
    const unknown = await fetch(`${origin}/exec/not-a-token`);
    expect(unknown.status).toBe(404);
  });

  it('ReopenContainerLog succeeds on a running container', async () => {
    await expect(containerd.cri.reopenContainerLog({ containerId: mainId })).resolves.toEqual({});
  });

  it('StopContainer ends the container and ContainerStatus reports it exited', async () => {
    await containerd.cri.stopContainer({ containerId: mainId, timeout: 0 });
    const status = await containerd.cri.containerStatus({ containerId: mainId });
    expect(status.status?.state).toBe('CONTAINER_EXITED');
    expect(status.status?.finishedAt).toBeGreaterThan(0n);
    expect(status.status?.exitCode).toBe(137);
  });

  it('RemoveContainer removes it: ContainerStatus is then NOT_FOUND', async () => {
    await containerd.cri.removeContainer({ containerId: mainId });
    const error = await containerd.cri.containerStatus({ containerId: mainId }).catch((e: unknown) => e);
    expect(isCriError(error, GrpcStatus.NOT_FOUND)).toBe(true);
    expect(error).toMatchObject({ reason: 'NotFound', code: 404, method: 'RuntimeService/ContainerStatus' });
  });

  it('StopPodSandbox stops the rest and releases the network namespace; RemovePodSandbox leaves ListPodSandbox empty', async () => {
    await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId });
    const stoppedStatus = await containerd.cri.podSandboxStatus({ podSandboxId: sandboxId });
    expect(stoppedStatus.status?.state).toBe('SANDBOX_NOTREADY');
    expect((await containerd.cri.containerStatus({ containerId: webId })).status?.state).toBe('CONTAINER_EXITED');
    expect(netnsPath && existsSync(netnsPath)).toBe(false);
    await containerd.cri.removePodSandbox({ podSandboxId: sandboxId });
    expect((await containerd.cri.listPodSandbox()).items).toEqual([]);
    expect((await containerd.cri.listContainers()).containers).toEqual([]);
    // Removing again is a no-op. Stopping a removed sandbox is NOT_FOUND in containerd 1.6
    // although the CRI asks for idempotence; callers treat that code as "already done".
    await containerd.cri.removePodSandbox({ podSandboxId: sandboxId });
    const again = await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId }).then(() => 'ok', (e: unknown) => e);
    expect(again === 'ok' || isCriError(again, GrpcStatus.NOT_FOUND)).toBe(true);
    const left = await eventually('no shim left for the removed sandbox', () => (containerd.leftovers().shims.length === 0 ? true : undefined));
    expect(left).toBe(true);
  });
});

describe('the pause image', () => {
  it('exits 0 on SIGTERM as a container process, so a sandbox stops without being killed', async () => {
    const config = sandboxConfig('pause-check');
    const { podSandboxId } = await containerd.cri.runPodSandbox({ config });
    const { containerId } = await containerd.cri.createContainer({
      podSandboxId,
      sandboxConfig: config,
      config: { metadata: { name: 'pause' }, image: { image: PAUSE_IMAGE }, logPath: 'pause/0.log' },
    });
    await containerd.cri.startContainer({ containerId });
    await containerd.cri.stopContainer({ containerId, timeout: 60 });
    const status = await containerd.cri.containerStatus({ containerId });
    expect(status.status?.state).toBe('CONTAINER_EXITED');
    expect(status.status?.exitCode).toBe(0);
    await containerd.cri.stopPodSandbox({ podSandboxId });
    await containerd.cri.removePodSandbox({ podSandboxId });
  });
});

describe('errors', () => {
  it('a container from an image the node lacks fails with a CriError and creates nothing', async () => {
    const config = sandboxConfig('bad-image');
    const { podSandboxId } = await containerd.cri.runPodSandbox({ config });
    const error = await containerd.cri
      .createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: 'x' }, image: { image: 'svc.local/not-there:1' } } })
      .catch((e: unknown) => e);
    expect(isCriError(error)).toBe(true);
    expect((await containerd.cri.listContainers({ filter: { podSandboxId } })).containers).toEqual([]);
    await containerd.cri.stopPodSandbox({ podSandboxId });
    await containerd.cri.removePodSandbox({ podSandboxId });
  });

  it('an unknown runtime handler is refused', async () => {
    const error = await containerd.cri.runPodSandbox({ config: sandboxConfig('bad-handler'), runtimeHandler: 'no-such-handler' }).catch((e: unknown) => e);
    expect(isCriError(error)).toBe(true);
    expect((await containerd.cri.listPodSandbox({ filter: { labelSelector: { 'svc.io/test': 'bad-handler' } } })).items).toEqual([]);
  });

  it('a call past its deadline rejects with DEADLINE_EXCEEDED', async () => {
    const error = await containerd.cri.version(undefined, { timeoutMs: 0 }).catch((e: unknown) => e);
    expect(isCriError(error, GrpcStatus.DEADLINE_EXCEEDED)).toBe(true);
    expect(error).toMatchObject({ reason: 'Timeout', code: 504 });
  });
});

describe('teardown', () => {
  it('stop() leaves no containerd, shim, mount, network namespace or bridge behind', async () => {
    const sandbox = await containerd.cri.runPodSandbox({ config: sandboxConfig('left-running') });
    expect(sandbox.podSandboxId).not.toBe('');
    const before = containerd.leftovers();
    expect(before.containerdRunning).toBe(true);
    expect(before.shims.length).toBeGreaterThan(0);
    expect(before.netns.length).toBeGreaterThan(0);
    stopped = true;
    await containerd.stop();
    expect(containerd.leftovers()).toEqual({ shims: [], mounts: [], netns: [], containerdRunning: false, bridgePresent: false });
    expect(existsSync(containerd.dir)).toBe(false);
  });
});
