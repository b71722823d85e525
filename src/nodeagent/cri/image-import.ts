/**
 * Loads an image archive into containerd for its CRI plugin. The CRI has no import call, so this
 * goes around it: `ctr images import` (shipped with containerd) into the `k8s.io` namespace,
 * unpacked into the snapshotter the CRI plugin uses; `--digests` also names the image by its
 * manifest digest, which the CRI reports as its repo digest. ctr rather than containerd's own
 * content and images gRPC services: the import (blob ingest, index walk, platform match, unpack)
 * is several hundred lines of containerd logic that ctr already does correctly, and every
 * containerd install has it. The CRI plugin sees the new image through containerd's events.
 */
import { spawn } from 'node:child_process';
import { StatusError } from '../../api/index.js';

export interface ImportImageOptions {
  /** containerd's gRPC socket path (the CRI endpoint without `unix://`). */
  readonly address: string;
  /** OCI layout or docker-archive tar. */
  readonly archive: string;
  /** Must match the CRI plugin's snapshotter, or the image is present but not runnable. */
  readonly snapshotter: string;
  /** containerd namespace; the CRI plugin's is `k8s.io`. */
  readonly namespace?: string;
  /** The ctr binary; default `ctr` on PATH. */
  readonly ctr?: string;
}

export function importImageArchive(options: ImportImageOptions): Promise<void> {
  const address = options.address.replace(/^unix:\/\//, '');
  const args = ['--address', address, '--namespace', options.namespace ?? 'k8s.io', 'images', 'import', '--digests', '--snapshotter', options.snapshotter, options.archive];
  return new Promise((resolve, reject) => {
    const child = spawn(options.ctr ?? 'ctr', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk;
    });
    child.once('error', (error) =>
      reject(new StatusError({ reason: 'InternalError', message: `importing ${options.archive}: cannot run ctr: ${error.message}`, cause: error })),
    );
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new StatusError({ reason: 'InternalError', message: `importing ${options.archive}: ctr exited with ${code}: ${stderr.trim()}` }));
    });
  });
}
