// The real `nodeagent` process without an API server: static pods from a manifest directory
// (standalone mode) and `--runonce`, against a private containerd.
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleNodeAgent } from '../../../scripts/bundle-nodeagent.js';
import { mountsUnder, POD_NAME_LABEL } from '../../../src/nodeagent/index.js';
import { eventually } from '../../controllers/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { agentDirs, freePort, runAgent, sleeper, spawnAgent, uniqueNodeName, unmountUnder, writeAgentConfig, type AgentProcess } from './support.js';

const REPO_ROOT = join(import.meta.dirname, '../../..');
// Short: unix socket paths under it are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-na-standalone-');
let containerd: RunningContainerd;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  containerd = await startContainerd();
}, 120_000);

afterAll(async () => {
  for (const agent of agents) {
    await agent.stop();
    // SIGTERM is a clean stop.
    expect(await agent.exited).toBe(0);
  }
  await containerd?.stop();
  unmountUnder(dir);
  // Nothing of the node outlives the suite: no shim, mount, network namespace, containerd or bridge.
  if (containerd) expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], netns: [], containerdRunning: false, bridgePresent: false });
  expect(mountsUnder(dir)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** The running containers of the static pod `<name>-<node>` (the name a static pod gets). */
async function runningOf(podName: string) {
  const { containers } = await containerd.cri.listContainers({ filter: { labelSelector: { [POD_NAME_LABEL]: podName } } });
  return containers.filter((c) => c.state === 'CONTAINER_RUNNING');
}

/** A node's scratch dir with its config and a manifest dir holding one static pod. */
async function staticNode(name: string, podName: string) {
  const nodeDir = join(dir, name);
  const dirs = agentDirs(nodeDir);
  const manifests = join(nodeDir, 'manifests');
  mkdirSync(manifests);
  const manifest = join(manifests, `${podName}.yaml`);
  writeFileSync(manifest, stringify(sleeper(podName)));
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort() });
  const args = ['--config', dirs.config, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', name, '--pod-manifest-path', manifests];
  return { args, manifest };
}

describe('nodeagent in standalone mode', () => {
  it('runs a static pod from --pod-manifest-path without --svcconfig, and stops it when the manifest goes', async () => {
    const node = uniqueNodeName('standalone');
    const { args, manifest } = await staticNode(node, 'static-web');
    const agent = spawnAgent(args);
    agents.push(agent);
    await agent.running();
    expect(agent.stderr()).toContain(`node ${node} running standalone`);
    const podName = `static-web-${node}`;
    await eventually(async () => (await runningOf(podName)).length === 1, `the container of ${podName} to run`, 60_000);
    const [container] = await runningOf(podName);
    expect(container!.metadata?.name).toBe('main');

    unlinkSync(manifest);
    await eventually(async () => (await runningOf(podName)).length === 0, `the container of ${podName} to stop`, 60_000);
    // Stopped, not replaced: the container that ran is no longer running and no other took its place.
    const { containers } = await containerd.cri.listContainers({ filter: { labelSelector: { [POD_NAME_LABEL]: podName } } });
    for (const c of containers) expect(c.state).not.toBe('CONTAINER_RUNNING');
    expect(agent.child.exitCode).toBeNull();
    // Stopped here, not after the suite: a running agent owns the runtime, as the kubelet does,
    // and removes the pods no source of its names (the next tests' pods among them).
    await agent.stop();
    expect(await agent.exited).toBe(0);
  }, 120_000);
});

describe('the bundled nodeagent bin (dist/nodeagent.mjs, as npm run build writes it)', () => {
  it('runs a static pod through the runtime, started by its own shebang', async () => {
    // Inside the repository, as dist/ is: the bundle finds package.json and node_modules from there.
    const bundleDir = join(REPO_ROOT, 'node_modules/.cache', `svc-bundle-standalone-${process.pid}`);
    const bin = join(bundleDir, 'nodeagent.mjs');
    await bundleNodeAgent(bin);
    try {
      const node = uniqueNodeName('bundle');
      const { args } = await staticNode(node, 'bundled');
      const result = await runAgent([...args, '--runonce', '--enable-server=false'], bin);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`default/bundled-${node}: Running`);
      expect(await runningOf(`bundled-${node}`)).toHaveLength(1);
    } finally {
      rmSync(bundleDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('nodeagent --runonce', () => {
  it('starts the static pods, prints each one Running and exits 0, leaving the containers running', async () => {
    const node = uniqueNodeName('runonce');
    const { args } = await staticNode(node, 'once');
    const result = await runAgent([...args, '--runonce', '--enable-server=false']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`default/once-${node}: Running`);
    expect(await runningOf(`once-${node}`)).toHaveLength(1);
  }, 120_000);

  it('refuses --runonce with the server on (the default, or --enable-server given): exit 1, nothing started', async () => {
    const node = uniqueNodeName('refused');
    const { args } = await staticNode(node, 'never');
    for (const extra of [['--enable-server'], ['--enable-server=true'], []]) {
      const result = await runAgent([...args, '--runonce', ...extra]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('--runonce: is exclusive with --enable-server');
    }
    const { containers } = await containerd.cri.listContainers({ filter: { labelSelector: { [POD_NAME_LABEL]: `never-${node}` } } });
    expect(containers).toEqual([]);
  }, 120_000);
});
