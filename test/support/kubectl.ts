import { spawn, spawnSync } from 'node:child_process';

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

/** Runs kubectl with the given svcconfig; resolves with its exit code and output. */
export function kubectl(svcconfig: string, args: readonly string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(requireKubectl(), ['--kubeconfig', svcconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}
