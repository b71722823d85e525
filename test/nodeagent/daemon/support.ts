/**
 * The real `nodeagent` process for the daemon suites: a generated NodeAgentConfiguration, the
 * bin spawned with `node --import tsx`, its output kept for failure messages, and the clean-up
 * of what it leaves on the host (the shared bind mount of its root dir).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Pod } from '../../../src/api/index.js';
import { CONFIG_API_VERSION, CONFIG_KIND } from '../../../src/cli/nodeagent-config.js';
import { mountsUnder, POD_UID_LABEL, type CriClient } from '../../../src/nodeagent/index.js';

const REPO = join(import.meta.dirname, '..', '..', '..');

/** A port for the agent daemon's `port` (1–65535: it cannot bind 0), outside the ephemeral range. */
export { freePort } from '../../support/free-port.js';

/** A node name no other suite uses (Node names are DNS subdomains: lower case). */
export const uniqueNodeName = (prefix: string): string => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

export interface AgentConfigOptions {
  readonly endpoint: string;
  readonly port: number;
  /** With it the agent accepts client certificates of this CA and asks the API server (Webhook) what they may do. */
  readonly clientCaFile?: string;
  readonly extra?: Record<string, unknown>;
}

/**
 * Writes the configuration a test node runs with, each choice for a reason: no read-only or
 * health port (parallel suites would fight over fixed ports), cgroup v1 and swap tolerated (CI
 * machines), and a quick file/URL check so static pods appear and go without a 20 s wait.
 */
export function writeAgentConfig(path: string, o: AgentConfigOptions): string {
  const config: Record<string, unknown> = {
    apiVersion: CONFIG_API_VERSION,
    kind: CONFIG_KIND,
    containerRuntimeEndpoint: o.endpoint,
    port: o.port,
    readOnlyPort: 0,
    healthzPort: 0,
    failCgroupV1: false,
    failSwapOn: false,
    fileCheckFrequency: '1s',
    httpCheckFrequency: '1s',
    ...(o.clientCaFile
      ? {
          authentication: { anonymous: { enabled: false }, x509: { clientCAFile: o.clientCaFile }, webhook: { enabled: true } },
          authorization: { mode: 'Webhook' },
        }
      : {}),
    ...o.extra,
  };
  writeFileSync(path, stringify(config));
  return path;
}

export interface AgentProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr says the node runs; rejects with the output when the agent exits first. */
  running(): Promise<void>;
  /** SIGTERM and wait (the agent leaves its containers running by design). */
  stop(): Promise<void>;
}

/**
 * Spawns `nodeagent <args>` from the repository's sources, or, given `bin`, that executable file
 * as the kernel runs it (the bundle `npm run build` writes, its shebang's flags and environment).
 */
export function spawnAgent(args: readonly string[], bin?: string): AgentProcess {
  const [file, ...argv] = bin ? [bin, ...args] : [process.execPath, '--import', 'tsx', 'src/cli/nodeagent.ts', ...args];
  const child = spawn(file!, argv, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    async running() {
      let gone = false;
      void exited.then(() => {
        gone = true;
        for (const wake of waiters.splice(0)) wake();
      });
      while (!/nodeagent: node \S+ running/.test(err)) {
        if (gone) throw new Error(`the agent exited before running:\n${err.slice(-3000)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `nodeagent <args>` to its end (`--runonce`, a refused option). */
export async function runAgent(args: readonly string[], bin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const agent = spawnAgent(args, bin);
  const code = await agent.exited;
  return { code, stdout: agent.stdout(), stderr: agent.stderr() };
}

/** The scratch layout of one agent: its root dir, cert dir and config file. */
export function agentDirs(dir: string): { rootDir: string; certDir: string; config: string } {
  const rootDir = join(dir, 'root');
  mkdirSync(rootDir, { recursive: true });
  return { rootDir, certDir: join(dir, 'pki'), config: join(dir, 'config.yaml') };
}

/** The agent made its root dir a shared bind mount (and volumes mount under it): undo them, deepest first. */
export function unmountUnder(dir: string): void {
  for (const point of mountsUnder(dir).sort((a, b) => b.length - a.length)) {
    if (spawnSync('umount', [point], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', point], { stdio: 'ignore' });
  }
}

/** A pod's containers in the runtime, found by the label the agent puts on them. */
export async function containersOf(cri: CriClient, uid: string) {
  return (await cri.listContainers({ filter: { labelSelector: { [POD_UID_LABEL]: uid } } })).containers;
}

/** A busybox pod that sleeps; the image is imported, never pulled (`latest` would mean Always). */
export function sleeper(name: string, nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      terminationGracePeriodSeconds: 1,
      // No controller manager here publishes kube-root-ca.crt, which the service-account volume needs.
      automountServiceAccountToken: false,
      containers: [{ name: 'main', image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }],
    },
  };
}
