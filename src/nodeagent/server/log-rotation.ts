import { createReadStream, createWriteStream } from 'node:fs';
import { access, rename, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { badRequest, quantityValue } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { rotatedFiles, rotatedName } from './log-files.js';

export interface LogRotatorOptions {
  readonly cri: CriClient;
  /** `--container-log-max-size` as bytes (see `parseLogMaxSize`). */
  readonly maxSizeBytes: number;
  /** `--container-log-max-files` (≥ 2): the current file counts. */
  readonly maxFiles: number;
  /** How often running containers' logs are looked at (default 10 s, the kubelet's). */
  readonly intervalMs?: number | undefined;
  readonly now?: (() => number) | undefined;
  /** A failed rotation of one container, or of a whole pass (no container id). */
  readonly onError?: ((error: unknown, containerId: string | undefined) => void) | undefined;
}

/** `--container-log-max-size` (a quantity: `10Mi`, `512Ki`, `1G`, `2048`) in bytes. */
export function parseLogMaxSize(text: string): number {
  const size = quantityValue(text);
  if (size === undefined) throw badRequest(`--container-log-max-size: ${JSON.stringify(text)} is not a quantity such as 10Mi`);
  const bytes = Math.floor(size);
  if (bytes <= 0) throw badRequest('--container-log-max-size: must be positive');
  return bytes;
}

/**
 * Rotates the logs of running containers as the kubelet does: every interval, a container whose
 * current log is past the max size has it renamed `<path>.<timestamp>` and the runtime told to
 * reopen it (ReopenContainerLog); rotated files past `maxFiles - 1` go, oldest first, and every
 * rotated file but the newest is gzipped (the newest stays plain: a follower may still be reading it).
 */
export class LogRotator {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  readonly #now: () => number;

  constructor(private readonly options: LogRotatorOptions) {
    if (options.maxFiles < 2) throw badRequest('--container-log-max-files: must be at least 2');
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    if (this.#timer) return;
    // A pass that fails (the runtime is down) is reported and the next one tries again.
    this.#timer = setInterval(() => void this.rotateOnce().catch((error: unknown) => this.options.onError?.(error, undefined)), this.options.intervalMs ?? 10_000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass over the running containers; passes never overlap. */
  rotateOnce(): Promise<void> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #pass(): Promise<void> {
    const { containers } = await this.options.cri.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } });
    for (const container of containers) {
      try {
        await this.rotateContainer(container.id);
      } catch (error) {
        this.options.onError?.(error, container.id);
      }
    }
  }

  /** Rotates one container's log if it is past the max size; keeps the rotated files in bounds either way. */
  async rotateContainer(containerId: string): Promise<void> {
    const { status } = await this.options.cri.containerStatus({ containerId });
    const path = status?.logPath;
    if (!path) return;
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      return; // nothing written yet
    }
    if (size > this.options.maxSizeBytes) {
      const target = rotatedName(path, this.#now());
      // Two rotations within one second would share a name: the second waits for the next pass.
      if (!(await exists(target)) && !(await exists(`${target}.gz`))) {
        await rename(path, target);
        try {
          await this.options.cri.reopenContainerLog({ containerId });
        } catch (error) {
          // The runtime still writes the renamed file: put it back so the name is true again.
          await rename(target, path).catch(() => {});
          throw error;
        }
      }
    }
    await this.#prune(path);
  }

  async #prune(path: string): Promise<void> {
    let rotated = await rotatedFiles(path);
    const excess = rotated.length - (this.options.maxFiles - 1);
    for (const file of rotated.slice(0, Math.max(0, excess))) await unlink(file).catch(() => {});
    rotated = rotated.slice(Math.max(0, excess));
    for (const file of rotated.slice(0, -1)) if (!file.endsWith('.gz')) await gzip(file);
  }
}

async function gzip(file: string): Promise<void> {
  const tmp = `${file}.gz.tmp`;
  await pipeline(createReadStream(file), createGzip(), createWriteStream(tmp));
  await rename(tmp, `${file}.gz`);
  await unlink(file);
}

const exists = (path: string) => access(path).then(() => true, () => false);
