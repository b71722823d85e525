import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startApiServer, type RunningApiServer } from './api-server.js';
import { startEtcd, type EtcdMember } from './etcd.js';

/** kubectl is a real client the suites drive; it must be there (CI fails without it, never skips). */
export function requireKubectl(): string {
  const found = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || !path) throw new Error('kubectl is required by this suite and is not on PATH');
  return path;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl with the given svcconfig; resolves with its exit code and output. Its discovery
 * cache sits next to the svcconfig: kubectl caches discovery per host and port (in ~/.kube/cache
 * by default, for hours), so a server on a port another suite's server had before would be seen
 * through that server's documents.
 */
export function kubectl(svcconfig: string, args: readonly string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const cacheDir = join(dirname(svcconfig), '.kube-cache');
    const child = spawn(requireKubectl(), ['--kubeconfig', svcconfig, '--cache-dir', cacheDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** A svc-apiserver over HTTPS for kubectl, started before a suite's tests and removed after. */
export interface KubectlServer {
  /** A scratch folder for the suite's manifests (the server's data lives in `<dir>/data`). */
  readonly dir: string;
  readonly server: RunningApiServer;
  /** The admin svcconfig the server wrote: pass it to `kubectl`. */
  readonly config: string;
}

/** Registers the suite's beforeAll/afterAll that run a server for kubectl (and check kubectl is there). */
export function useKubectlServer(prefix: string, storage: 'sqlite' | 'memory' | 'etcd' = 'sqlite'): KubectlServer {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let server: RunningApiServer | undefined;
  let etcd: EtcdMember | undefined;
  beforeAll(async () => {
    requireKubectl();
    if (storage === 'etcd') etcd = await startEtcd();
    server = await startApiServer({
      dataDir: join(dir, 'data'),
      storage,
      ...(etcd ? { etcdServers: [etcd.endpoint] } : {}),
      bindAddress: '127.0.0.1',
      securePort: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const running = () => {
    if (!server) throw new Error('the kubectl server is not running: use it inside tests or hooks');
    return server;
  };
  return {
    dir,
    get server() {
      return running();
    },
    get config() {
      return running().svcconfigPath;
    },
  };
}
