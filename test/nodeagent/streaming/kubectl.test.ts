/**
 * kubectl 1.32 as the client of the streaming handler, end to end against real containerd: the
 * suite's API server holds the pod object (kubectl reads it first), and a small front proxy
 * stands where the API server's pods/exec, pods/attach and pods/portforward proxy will: it maps
 * those upgrade requests onto the agent's paths and forwards everything else to the API server.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSYBOX_IMAGE, isStreamingPath, streamingUpgradeHandler, type Input, type PodSandboxConfig } from '../../../src/nodeagent/index.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { kubectl, requireKubectl, useKubectlServer } from '../../support/kubectl.js';

const api = useKubectlServer('svc-streaming-kubectl-');
let containerd: RunningContainerd;
let proxy: Server;
let kubeconfig = '';
/** What kubectl asked for at each upgrade: the path it dialled, the upgrade, the subprotocols. */
const upgrades: { path: string; upgrade: string; protocols: string }[] = [];

/** `/api/v1/namespaces/{ns}/pods/{name}/{exec|attach|portforward}?…` → the agent's path. */
function agentPath(url: string): string | undefined {
  const parsed = new URL(url, 'http://x');
  const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/.exec(parsed.pathname);
  if (!match) return undefined;
  const [, namespace, pod, sub] = match;
  if (sub === 'portforward') return `/portForward/${namespace}/${pod}${parsed.search}`;
  return `/${sub}/${namespace}/${pod}/${parsed.searchParams.get('container') ?? ''}${parsed.search}`;
}

function forward(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  const target = new URL(req.url ?? '/', api.server.url);
  const headers = { ...req.headers, host: target.host, authorization: `Bearer ${api.server.adminToken}` };
  const upstream = httpsRequest(target, { method: req.method, headers, ca: api.server.caPem }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

beforeAll(async () => {
  requireKubectl();
  containerd = await startContainerd();
  const labels = { 'svc.io/pod.name': 'web', 'svc.io/pod.namespace': 'default', 'svc.io/pod.uid': 'uid-web' };
  const sandboxConfig: Input<PodSandboxConfig> = {
    metadata: { name: 'web', uid: 'uid-web', namespace: 'default', attempt: 0 },
    hostname: 'web',
    logDirectory: join(containerd.logRoot, 'default_web_uid-web'),
    labels,
    linux: {},
  };
  const { podSandboxId } = await containerd.cri.runPodSandbox({ config: sandboxConfig });
  for (const [name, command] of [
    ['main', ['sleep', '3600']],
    ['web', ['sh', '-c', 'mkdir -p /www && echo served-from-the-pod > /www/index.html && exec httpd -f -p 8080 -h /www']],
    ['echo', ['sh', '-c', 'while read line; do echo "echo:$line"; done']],
  ] as const) {
    // `echo` keeps stdin open, once: the first attach that ends its stdin ends the loop.
    const stdin = name === 'echo';
    const { containerId } = await containerd.cri.createContainer({
      podSandboxId,
      sandboxConfig,
      config: { metadata: { name }, image: { image: BUSYBOX_IMAGE }, command: [...command], logPath: `${name}/0.log`, labels: { ...labels, 'svc.io/container.name': name }, stdin, stdinOnce: stdin },
    });
    await containerd.cri.startContainer({ containerId });
  }

  const streaming = streamingUpgradeHandler({ cri: containerd.cri, idleTimeoutMs: 0 });
  proxy = createServer(forward);
  proxy.on('upgrade', (req, socket, head) => {
    const path = agentPath(req.url ?? '');
    if (!path || !isStreamingPath(path)) {
      socket.destroy();
      return;
    }
    upgrades.push({ path, upgrade: String(req.headers.upgrade), protocols: String(req.headers['sec-websocket-protocol'] ?? '') });
    req.url = path;
    streaming(req, socket, head);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as { port: number }).port;
  kubeconfig = join(api.dir, 'front.yaml');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: front, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
      'users: [{name: front, user: {}}]',
      'contexts: [{name: front, context: {cluster: front, user: front, namespace: default}}]',
      'current-context: front',
      '',
    ].join('\n'),
  );
  const pod = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default' },
    spec: { containers: [{ name: 'main', image: BUSYBOX_IMAGE }, { name: 'web', image: BUSYBOX_IMAGE }, { name: 'echo', image: BUSYBOX_IMAGE, stdin: true, stdinOnce: true }] },
  });
  const created = await kubectl(kubeconfig, ['apply', '-f', '-'], pod);
  expect(created.stderr).toBe('');
  const running = await kubectl(kubeconfig, ['patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
  expect(running.code, running.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  proxy?.close();
  await containerd?.stop();
});

describe('kubectl exec', () => {
  it('over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false): output, exit code, and stdin to its end', async () => {
    const env = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
    const result = await kubectlWithEnv(env, ['exec', 'web', '-c', 'main', '--', 'sh', '-c', 'echo spdy-out; exit 4']);
    expect(result).toMatchObject({ code: 4, stdout: 'spdy-out\n' });
    expect(upgrades.at(-1)).toMatchObject({ upgrade: 'SPDY/3.1' });
    const piped = await kubectlWithEnv(env, ['exec', '-i', 'web', '-c', 'main', '--', 'cat'], 'through spdy\n');
    expect(piped).toMatchObject({ code: 0, stdout: 'through spdy\n' });
  });

  it('prints stdout and stderr and exits with the command exit code', async () => {
    const result = await kubectl(kubeconfig, ['exec', 'web', '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result.stdout).toBe('out\n');
    expect(result.stderr).toContain('err\n');
    expect(result.code).toBe(3);
    // kubectl 1.32 speaks WebSocket v5 first (SPDY only as a fallback, which would show here).
    expect(upgrades.at(-1)).toMatchObject({ upgrade: 'websocket', protocols: expect.stringContaining('v5.channel.k8s.io') });
  });

  it('-i: piped stdin reaches the command and its end lets cat finish', async () => {
    const result = await kubectl(kubeconfig, ['exec', '-i', 'web', '-c', 'main', '--', 'cat'], 'piped through kubectl\n');
    expect(result).toMatchObject({ code: 0, stdout: 'piped through kubectl\n' });
  });
});

function kubectlWithEnv(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(requireKubectl(), ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * `kubectl attach -i` typed at: a probe line every 200 ms until its echo comes back, then `lines`,
 * then the end of stdin. containerd starts copying an attach's stdin before it adds the attach to
 * the container's stdout (internal/cri/io/container_io.go, Attach), so what the container answers
 * to input sent at once can go to no one: piping the lines at once failed this test once in CI
 * with stdout ''. Once a probe's echo arrives, the output is attached and every later answer
 * reaches kubectl.
 */
function attachTyping(args: string[], lines: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(requireKubectl(), ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // kubectl gone early (its error is in stderr) makes a write fail with EPIPE: the result says why.
    child.stdin.on('error', () => undefined);
    const probe = (): boolean => child.stdin.write('probe\n');
    const probing = setInterval(probe, 200);
    probe();
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!child.stdin.writableEnded && stdout.includes('echo:probe\n')) {
        clearInterval(probing);
        child.stdin.end(lines);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(probing);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

describe('kubectl attach', () => {
  it('-i: lines typed reach the container, its answers come back, and stdin end finishes it', async () => {
    const result = await attachTyping(['attach', '-i', 'web', '-c', 'echo'], 'one\ntwo\n');
    expect(result.stdout, result.stderr).toMatch(/^(echo:probe\n)+echo:one\necho:two\n$/);
    expect(result.code).toBe(0);
    expect(upgrades.at(-1)).toMatchObject({ path: expect.stringMatching(/^\/attach\/default\/web\/echo\?/), upgrade: 'websocket' });
  });
});

async function portForwardThrough(env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(requireKubectl(), ['--kubeconfig', kubeconfig, 'port-forward', 'pod/web', ':8080'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  try {
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const localPort = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        const match = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.on('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${output}`)));
    });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`http://127.0.0.1:${localPort}/index.html`);
      expect(await response.text()).toBe('served-from-the-pod\n');
    }
    expect(output).not.toMatch(/error/i);
  } finally {
    child.kill('SIGTERM');
  }
}

describe('kubectl port-forward', () => {
  it('forwards a local port to the pod HTTP server over SPDY tunneled in a WebSocket, connection after connection', async () => {
    await portForwardThrough({});
    expect(upgrades.at(-1)).toMatchObject({ path: '/portForward/default/web', upgrade: 'websocket', protocols: 'SPDY/3.1+portforward.k8s.io' });
  });

  it('with WebSockets off (KUBECTL_PORT_FORWARD_WEBSOCKETS=false) it forwards over plain SPDY', async () => {
    await portForwardThrough({ KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
    expect(upgrades.at(-1)).toMatchObject({ path: '/portForward/default/web', upgrade: 'SPDY/3.1', protocols: '' });
  });
});
