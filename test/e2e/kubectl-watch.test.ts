import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectl, requireKubectl, useKubectlServer } from '../support/kubectl.js';

const configMap = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

describe('kubectl paging and watching against svc-apiserver', () => {
  const k = useKubectlServer('svc-kubectl-watch-');

  beforeAll(async () => {
    // From a manifest: `kubectl create namespace` sends protobuf, which the representations issue serves.
    const ns = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paged' } });
    expect((await kubectl(k.config, ['create', '-f', '-'], ns)).code).toBe(0);
  });

  it('follows continue tokens page by page (--chunk-size) to the whole collection', async () => {
    for (let i = 0; i < 7; i++) expect((await kubectl(k.config, ['create', '-n', 'paged', '-f', '-'], configMap(`cm-${i}`))).code).toBe(0);
    const res = await kubectl(k.config, ['get', 'configmaps', '-n', 'paged', '--chunk-size=2', '-o', 'name', '-v=6']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n')).toEqual(Array.from({ length: 7 }, (_, i) => `configmap/cm-${i}`));
    // kubectl logged each page request: the first with limit=2, the later ones with a continue token.
    expect(res.stderr).toMatch(/limit=2/);
    expect(res.stderr).toMatch(/continue=/);
  });

  it('watches with -w: the existing objects, then each change as it happens', async () => {
    expect((await kubectl(k.config, ['create', '-n', 'paged', '-f', '-'], configMap('watched-first'))).code).toBe(0);
    const watch = spawn(requireKubectl(), ['--kubeconfig', k.config, 'get', 'configmaps', '-n', 'paged', '-w', '-o', 'name', '--field-selector=metadata.name!=kube-root-ca.crt'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: watch.stdout });
    const seen: string[] = [];
    const waitFor = (line: string) =>
      new Promise<void>((resolve, reject) => {
        if (seen.includes(line)) return resolve();
        const onLine = (l: string) => {
          if (l === line) {
            lines.off('line', onLine);
            resolve();
          }
        };
        lines.on('line', onLine);
        watch.once('exit', (code) => reject(new Error(`kubectl -w exited (${code}) before ${line}; saw ${JSON.stringify(seen)}`)));
      });
    lines.on('line', (l) => seen.push(l));
    try {
      await waitFor('configmap/watched-first');
      expect((await kubectl(k.config, ['create', '-n', 'paged', '-f', '-'], configMap('watched-second'))).code).toBe(0);
      await waitFor('configmap/watched-second');
      expect((await kubectl(k.config, ['delete', 'configmap', '-n', 'paged', 'watched-first'])).code).toBe(0);
      // The deletion is an event too: kubectl prints the object's name once more.
      await new Promise<void>((resolve, reject) => {
        const count = () => seen.filter((l) => l === 'configmap/watched-first').length;
        if (count() >= 2) return resolve();
        lines.on('line', () => count() >= 2 && resolve());
        watch.once('exit', () => reject(new Error('kubectl -w exited')));
      });
    } finally {
      watch.kill();
    }
  });
});
