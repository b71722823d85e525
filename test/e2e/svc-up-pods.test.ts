// kubectl against `svc up` with real containers: the cluster starts its own containerd and node
// agent; `kubectl run`, `logs`, `logs -f`, `exec`, `port-forward` and `delete` work unchanged,
// `kubectl run --image=busybox` pulls through the registries.yaml mirror (a real registry on
// loopback: there is no internet here), and stopping `svc up` leaves no containerd, shim or
// bridge behind.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkExists, shimsOf } from '../../src/nodeagent/index.js';
import { bridgeName } from '../../src/cli/up-node.js';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { markedBusybox, startRegistry, type RunningRegistry } from '../support/registry.js';
import { testPodCidr } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-e2e-');
const config = join(dir, 'admin.svcconfig');
let child: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
const stderr: string[] = [];
/** Stands in for Docker Hub, behind the firewall: the node reaches it as docker.io's mirror. */
let hub: RunningRegistry | undefined;
/** A private registry (htpasswd): only a pod with the right imagePullSecrets gets its image. */
let vault: RunningRegistry | undefined;

const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);

/** A pod of svc's local busybox: the image is present, so it is never pulled (no registry here). */
const runArgs = (name: string, script: string) => ['run', name, '--image=svc.local/busybox:latest', '--image-pull-policy=IfNotPresent', '--restart=Never', '--command', '--', 'sh', '-c', script];

function containerdPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('containerd') && argv.includes(join(dir, 'containerd', 'config.toml'))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

beforeAll(async () => {
  requireKubectl();
  hub = await startRegistry();
  await hub.push('library/busybox', 'latest', markedBusybox('pulled-through-the-mirror'));
  vault = await startRegistry({ users: { deployer: 'vault-pw' } });
  await vault.push('private/app', '1.0', markedBusybox('pulled-with-a-pull-secret'));
  // <data-dir>/registries.yaml is read when --registry-config is not given.
  writeFileSync(join(dir, 'registries.yaml'), `mirrors:\n  docker.io:\n    endpoint:\n      - "http://${hub.host}"\n`);
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--node-agent-port=0', testPodCidr(), '--disable-dashboard'], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  exited = new Promise((resolve) => child!.on('exit', (code) => resolve(code)));
  let started = false;
  for await (const line of createInterface({ input: child.stdout! })) if ((started = line.startsWith('  kubectl'))) break;
  // Its output ended without the ready lines: svc up stopped; say why rather than wait for a node.
  if (!started) throw new Error(`svc up ended before it was ready:\n${stderr.join('').slice(-4000)}`);
  await eventually(async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 'the node to be Ready');
}, 120_000);

afterAll(async () => {
  // SIGTERM, not SIGKILL: svc up takes its containerd, shims, bridge and mounts down with it (its
  // own grace ends it within 30 s), and the dir below is not removed through a mount.
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
  await hub?.stop();
  await vault?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubectl against svc up with real containers', () => {
  it('runs a pod to Running with a pod IP in the node\'s pod network', async () => {
    const run = await k(runArgs('e2e-ticker', 'trap "exit 0" TERM; echo started; i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done'));
    expect(run.code, run.stderr).toBe(0);
    // The README's commands print no warning (test/e2e/kubectl-no-warnings.test.ts has the rest).
    expect(run.stderr).toBe('');
    const nodes = await k(['get', 'nodes']);
    expect(nodes.code, nodes.stderr).toBe(0);
    expect(nodes.stderr).toBe('');
    const wait = await k(['wait', '--for=condition=Ready', 'pod/e2e-ticker', '--timeout=90s']);
    expect(wait.code, wait.stderr).toBe(0);
    const pod = JSON.parse((await k(['get', 'pod', 'e2e-ticker', '-o', 'json'])).stdout);
    expect(pod.status.phase).toBe('Running');
    const cidr = readFileSync(join(dir, 'agent', 'pod-cidr'), 'utf8').trim();
    expect(pod.status.podIP.startsWith(cidr.split('.').slice(0, 3).join('.') + '.')).toBe(true);
    expect(pod.status.containerStatuses[0].ready).toBe(true);
  }, 120_000);

  it('kubectl logs and logs -f read the container\'s output', async () => {
    const logs = await k(['logs', 'e2e-ticker']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stderr).toBe('');
    expect(logs.stdout).toContain('started\n');
    // The API server reached the agent verifying its certificate (svc up has the cluster CA sign it).
    expect(stderr.join('')).not.toContain('are not verified');
    // -f keeps streaming: the next ticks arrive on the open stream.
    const follow = spawn(requireKubectl(), ['--kubeconfig', config, 'logs', '-f', '--tail=1', 'e2e-ticker'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const ticks: string[] = [];
      for await (const line of createInterface({ input: follow.stdout })) {
        if (line.startsWith('tick ')) ticks.push(line);
        if (ticks.length >= 3) break;
      }
      const numbers = ticks.map((t) => Number(t.slice(5)));
      expect(numbers[1]).toBe(numbers[0]! + 1);
      expect(numbers[2]).toBe(numbers[1]! + 1);
    } finally {
      follow.kill();
    }
  }, 60_000);

  it('kubectl exec passes stdin, stdout, stderr and the exit code', async () => {
    const result = await k(['exec', '-i', 'e2e-ticker', '--', 'sh', '-c', 'read line; echo "got $line"; echo oops >&2; exit 3'], 'hello\n');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('got hello\n');
    expect(result.stderr).toContain('oops');
    const ok = await k(['exec', 'e2e-ticker', '--', 'cat', '/etc/hostname']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('e2e-ticker');
  }, 60_000);

  it('kubectl port-forward reaches a server listening inside the pod', async () => {
    const run = await k(runArgs('e2e-web', 'mkdir -p /www && echo hello-from-pod > /www/index.html || exit 1; httpd -f -p 8080 -h /www & trap "kill $!; exit 0" TERM; wait'));
    expect(run.code, run.stderr).toBe(0);
    expect((await k(['wait', '--for=condition=Ready', 'pod/e2e-web', '--timeout=90s'])).code).toBe(0);
    const forward = spawn(requireKubectl(), ['--kubeconfig', config, 'port-forward', 'pod/e2e-web', ':8080'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let port = 0;
      for await (const line of createInterface({ input: forward.stdout })) {
        const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(line);
        if (match) {
          port = Number(match[1]);
          break;
        }
      }
      expect(port).toBeGreaterThan(0);
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/index.html`);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('hello-from-pod\n');
      }
    } finally {
      forward.kill();
    }
  }, 120_000);

  // Both pods stop on SIGTERM (their scripts trap it): as PID 1 without a handler they ignored it,
  // and every run of this test waited out the 30 s grace period before the SIGKILL.
  it('kubectl delete ends the pods for good', async () => {
    const deleted = await k(['delete', 'pod', 'e2e-ticker', 'e2e-web', '--wait=true', '--timeout=90s']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const left = await k(['get', 'pods', '-o', 'name']);
    expect(left.stdout.trim()).toBe('');
  }, 120_000);

  it('kubectl run --image=busybox (no tag, so pull policy Always) pulls docker.io/library/busybox through the mirror and runs it', async () => {
    const run = await k(['run', 'e2e-hub', '--image=busybox', '--restart=Never', '--command', '--', 'cat', '/etc/svc-image']);
    expect(run.code, run.stderr).toBe(0);
    const done = await k(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/e2e-hub', '--timeout=90s']);
    expect(done.code, `${done.stderr}\n${(await k(['get', 'pod', 'e2e-hub', '-o', 'yaml'])).stdout}`).toBe(0);
    // The container ran the mirror's image (svc's own busybox has no /etc/svc-image).
    expect((await k(['logs', 'e2e-hub'])).stdout).toBe('pulled-through-the-mirror\n');
    expect(hub!.requests()).toContain('HEAD /v2/library/busybox/manifests/latest?ns=docker.io 200');
    const events = (await k(['get', 'events', '--field-selector=involvedObject.name=e2e-hub', '-o', 'jsonpath={.items[*].reason}'])).stdout.split(' ');
    expect(events).toEqual(expect.arrayContaining(['Pulling', 'Pulled']));
    expect((await k(['delete', 'pod', 'e2e-hub', '--wait=true', '--timeout=90s'])).code).toBe(0);
  }, 120_000);

  it('a pod\'s imagePullSecrets (kubectl create secret docker-registry) reach a private registry; without them the pull is refused', async () => {
    const image = `${vault!.host}/private/app:1.0`;
    const secret = await k(['create', 'secret', 'docker-registry', 'vault-cred', `--docker-server=${vault!.host}`, '--docker-username=deployer', '--docker-password=vault-pw']);
    expect(secret.code, secret.stderr).toBe(0);
    const withSecret = await k(['run', 'e2e-private', `--image=${image}`, '--restart=Never', '--overrides={"spec":{"imagePullSecrets":[{"name":"vault-cred"}]}}', '--command', '--', 'cat', '/etc/svc-image']);
    expect(withSecret.code, withSecret.stderr).toBe(0);
    const done = await k(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/e2e-private', '--timeout=90s']);
    expect(done.code, `${done.stderr}\n${(await k(['get', 'pod', 'e2e-private', '-o', 'yaml'])).stdout}`).toBe(0);
    expect((await k(['logs', 'e2e-private'])).stdout).toBe('pulled-with-a-pull-secret\n');

    const without = await k(['run', 'e2e-no-secret', `--image=${image}`, '--image-pull-policy=Always', '--restart=Never', '--command', '--', 'cat', '/etc/svc-image']);
    expect(without.code, without.stderr).toBe(0);
    const refused = await k(['wait', '--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=ErrImagePull', 'pod/e2e-no-secret', '--timeout=90s']);
    const waiting = (await k(['get', 'pod', 'e2e-no-secret', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting}'])).stdout;
    // ErrImagePull, or already its back-off: either way the registry said no.
    if (refused.code !== 0) expect(waiting).toContain('ImagePullBackOff');
    expect(vault!.requests().some((r) => r.startsWith('HEAD /v2/private/app/manifests/1.0') && r.endsWith(' 401'))).toBe(true);
    expect((await k(['delete', 'pod', 'e2e-private', 'e2e-no-secret', '--wait=true', '--timeout=90s'])).code).toBe(0);
  }, 180_000);

  // The workload loops svc up runs (daemonset-controller, statefulset-controller), with real containers.
  const sleeper = { image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'] };

  it('a DaemonSet has its pod Running on the node', async () => {
    const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'e2e-ds' }, spec: { selector: { matchLabels: { app: 'e2e-ds' } }, template: { metadata: { labels: { app: 'e2e-ds' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', ...sleeper }] } } } };
    const applied = await k(['apply', '-f', '-'], JSON.stringify(ds));
    expect(applied.code, applied.stderr).toBe(0);
    const rolled = await k(['rollout', 'status', 'daemonset/e2e-ds', '--timeout=90s']);
    expect(rolled.code, `${rolled.stderr}\n${(await k(['get', 'pods', '-o', 'yaml'])).stdout}`).toBe(0);
    const node = (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const pods = (await k(['get', 'pods', '-l', 'app=e2e-ds', '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}'])).stdout.trim().split('\n');
    expect(pods).toEqual([`${node} Running`]);
    const status = (await k(['get', 'daemonset', 'e2e-ds', '-o', 'jsonpath={.status.desiredNumberScheduled}/{.status.numberReady}/{.status.numberAvailable}'])).stdout;
    expect(status).toBe('1/1/1');
    expect((await k(['delete', 'daemonset', 'e2e-ds', '--wait=true', '--timeout=90s'])).code).toBe(0);
    await eventually(async () => (await k(['get', 'pods', '-l', 'app=e2e-ds', '-o', 'name'])).stdout.trim() === '', 'the daemon pod gone with its DaemonSet', 90_000);
  }, 180_000);

  it('a StatefulSet of 2 runs its members in order', async () => {
    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'e2e-sts' }, spec: { replicas: 2, serviceName: 'e2e-sts', selector: { matchLabels: { app: 'e2e-sts' } }, template: { metadata: { labels: { app: 'e2e-sts' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', ...sleeper }] } } } };
    const applied = await k(['apply', '-f', '-'], JSON.stringify(sts));
    expect(applied.code, applied.stderr).toBe(0);
    const rolled = await k(['rollout', 'status', 'statefulset/e2e-sts', '--timeout=120s']);
    expect(rolled.code, `${rolled.stderr}\n${(await k(['get', 'pods', '-o', 'yaml'])).stdout}`).toBe(0);
    const rows = (await k(['get', 'pods', '-l', 'app=e2e-sts', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.hostname} {.status.phase} {.metadata.creationTimestamp} {.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\\n"}{end}'])).stdout.trim().split('\n');
    const byName = new Map(rows.map((row) => { const [name, hostname, phase, created, ready] = row.split(' '); return [name, { hostname, phase, created: Date.parse(created!), ready: Date.parse(ready!) }] as const; }));
    expect([...byName.keys()].sort()).toEqual(['e2e-sts-0', 'e2e-sts-1']);
    expect(byName.get('e2e-sts-0')).toMatchObject({ hostname: 'e2e-sts-0', phase: 'Running' });
    expect(byName.get('e2e-sts-1')).toMatchObject({ hostname: 'e2e-sts-1', phase: 'Running' });
    // OrderedReady: e2e-sts-1 was created only once e2e-sts-0 was Ready (timestamps have whole seconds).
    expect(byName.get('e2e-sts-1')!.created).toBeGreaterThanOrEqual(byName.get('e2e-sts-0')!.ready);
    expect((await k(['delete', 'statefulset', 'e2e-sts', '--wait=true', '--timeout=90s'])).code).toBe(0);
    await eventually(async () => (await k(['get', 'pods', '-l', 'app=e2e-sts', '-o', 'name'])).stdout.trim() === '', 'the members gone with their StatefulSet', 90_000);
  }, 240_000);

  it('stopping svc up leaves no containerd, shim or bridge behind', async () => {
    child!.kill('SIGINT');
    expect(await exited, stderr.join('').slice(-3000)).toBe(0);
    expect(containerdPids()).toEqual([]);
    expect(shimsOf(join(dir, 'containerd', 'containerd.sock'))).toEqual([]);
    expect(linkExists(bridgeName(dir))).toBe(false);
    // Nothing is mounted under the data dir any more.
    expect(spawnSync('sh', ['-c', `grep -c ' ${dir}' /proc/self/mountinfo`], { encoding: 'utf8' }).stdout.trim()).toBe('0');
  }, 60_000);
});
