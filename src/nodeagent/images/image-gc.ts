/**
 * Image garbage collection by disk usage, as the kubelet does it: when the image filesystem is
 * more than `--image-gc-high-threshold` percent used, unused images are removed, least recently
 * used first, until usage would be at `--image-gc-low-threshold`. An image is unused when no
 * container (in any state) was created from it; it is eligible once it has been known for
 * `--minimum-image-ttl-duration`. The sandbox (pause) image (which sandboxes run, though no
 * container lists it) and images the runtime pins are never
 * removed. A high threshold of 100 disables collection.
 *
 * "Known since" and "last used" are this agent's memory: after a restart every image is new
 * again, so nothing is removed before the minimum age has passed (the kubelet behaves the same).
 */
import { statfs } from 'node:fs/promises';
import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { PAUSE_IMAGE } from '../cri/index.js';
import type * as T from '../cri/index.js';
import type { InvolvedObject } from '../../client/index.js';
import type { ImageEventSink } from './image-manager.js';

export interface ImageGcPolicy {
  /** Percent of the image filesystem above which collection runs; 100 disables. */
  readonly highThresholdPercent: number;
  /** Percent collection brings usage down to; below the high threshold. */
  readonly lowThresholdPercent: number;
  /** Minimum age of an unused image before it may be removed (ms). */
  readonly minimumAgeMs: number;
}

export const DEFAULT_IMAGE_GC_POLICY: ImageGcPolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minimumAgeMs: 120_000 };

export interface ImageFilesystemUsage {
  readonly capacityBytes: number;
  readonly availableBytes: number;
}

export interface ImageGarbageCollectorOptions {
  readonly cri: Pick<CriClient, 'listImages' | 'listContainers' | 'removeImage' | 'imageFsInfo' | 'imageStatus'>;
  readonly policy: ImageGcPolicy;
  /** The CRI sandbox image; default svc's pause image. */
  readonly sandboxImage?: string;
  readonly events?: ImageEventSink | undefined;
  /** The Node the events are about. */
  readonly node?: InvolvedObject | undefined;
  readonly now?: () => number;
  /** The image filesystem's size and free space; default statfs of the runtime's image filesystem mount point. */
  readonly filesystem?: () => Promise<ImageFilesystemUsage>;
}

export interface ImageRecord {
  readonly id: string;
  readonly size: number;
  readonly firstDetected: number;
  readonly lastUsed: number;
}

export interface ImageGcResult {
  /** Usage before, in percent; undefined when the threshold disables collection. */
  readonly usagePercent: number | undefined;
  readonly bytesToFree: number;
  readonly freedBytes: number;
  /** Image ids removed. */
  readonly removed: readonly string[];
}

/**
 * The images to remove to free `bytesToFree`: eligible ones (unused, known long enough) least
 * recently used first, ties broken by the oldest detection, until enough is freed.
 */
export function selectImagesToFree(candidates: readonly ImageRecord[], bytesToFree: number, now: number, minimumAgeMs: number): ImageRecord[] {
  const eligible = candidates.filter((image) => now - image.firstDetected >= minimumAgeMs).sort((a, b) => a.lastUsed - b.lastUsed || a.firstDetected - b.firstDetected);
  const chosen: ImageRecord[] = [];
  let freed = 0;
  for (const image of eligible) {
    if (freed >= bytesToFree) break;
    chosen.push(image);
    freed += image.size;
  }
  return chosen;
}

export function validateImageGcPolicy(policy: ImageGcPolicy): void {
  const { highThresholdPercent: high, lowThresholdPercent: low } = policy;
  if (!(high >= 0 && high <= 100)) throw new StatusError({ reason: 'BadRequest', message: `invalid image GC high threshold ${high}: must be within [0, 100]` });
  if (!(low >= 0 && low <= 100)) throw new StatusError({ reason: 'BadRequest', message: `invalid image GC low threshold ${low}: must be within [0, 100]` });
  if (low >= high && high !== 100) throw new StatusError({ reason: 'BadRequest', message: `image GC low threshold ${low} must be below the high threshold ${high}` });
}

export class ImageGarbageCollector {
  readonly #o: ImageGarbageCollectorOptions;
  readonly #now: () => number;
  readonly #known = new Map<string, { firstDetected: number; lastUsed: number }>();
  #running: Promise<ImageGcResult> | undefined;

  constructor(options: ImageGarbageCollectorOptions) {
    validateImageGcPolicy(options.policy);
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** One collection pass (concurrent calls share it). Failures are reported as an ImageGCFailed event and rethrown. */
  collect(): Promise<ImageGcResult> {
    this.#running ??= this.#collect()
      .catch((error: unknown) => {
        this.#event('Warning', 'ImageGCFailed', error instanceof Error ? error.message : String(error));
        throw error;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  async #collect(): Promise<ImageGcResult> {
    const { policy } = this.#o;
    const images = await this.#detect();
    if (policy.highThresholdPercent >= 100) return { usagePercent: undefined, bytesToFree: 0, freedBytes: 0, removed: [] };
    const fs = await (this.#o.filesystem ?? (() => this.#imageFilesystem()))();
    if (fs.capacityBytes <= 0) throw new StatusError({ reason: 'InternalError', message: `invalid capacity ${fs.capacityBytes} on image filesystem` });
    const usagePercent = 100 - (fs.availableBytes * 100) / fs.capacityBytes;
    if (usagePercent <= policy.highThresholdPercent) return { usagePercent, bytesToFree: 0, freedBytes: 0, removed: [] };
    const bytesToFree = Math.ceil((fs.capacityBytes * (100 - policy.lowThresholdPercent)) / 100 - fs.availableBytes);
    const { freedBytes, removed } = await this.#free(images, bytesToFree);
    if (freedBytes < bytesToFree) {
      this.#event(
        'Warning',
        'FreeDiskSpaceFailed',
        `Failed to garbage collect required amount of images. Attempted to free ${bytesToFree} bytes, but only found ${freedBytes} bytes eligible to free.`,
      );
    }
    return { usagePercent, bytesToFree, freedBytes, removed };
  }

  /**
   * Removes every unused image old enough, whatever the disk usage (the eviction manager's
   * "delete all unused images"); returns what was freed.
   */
  async deleteUnusedImages(): Promise<{ freedBytes: number; removed: readonly string[] }> {
    return this.#free(await this.#detect(), Number.POSITIVE_INFINITY);
  }

  async #free(images: readonly ImageRecord[], bytesToFree: number): Promise<{ freedBytes: number; removed: string[] }> {
    const now = this.#now();
    const removed: string[] = [];
    let freedBytes = 0;
    const failures: string[] = [];
    for (const image of selectImagesToFree(images, bytesToFree, now, this.#o.policy.minimumAgeMs)) {
      try {
        await this.#o.cri.removeImage({ image: { image: image.id } });
        this.#known.delete(image.id);
        removed.push(image.id);
        freedBytes += image.size;
      } catch (error) {
        failures.push(`${image.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length > 0) this.#event('Warning', 'ImageGCFailed', `failed to remove images: ${failures.join('; ')}`);
    return { freedBytes, removed };
  }

  /** Updates what is known of each image and returns the removable ones (unused, not the sandbox's, not pinned). */
  async #detect(): Promise<ImageRecord[]> {
    const now = this.#now();
    const [{ images }, { containers }] = await Promise.all([this.#o.cri.listImages({}), this.#o.cri.listContainers({})]);
    const inUse = new Set<string>();
    for (const container of containers) {
      if (container.imageRef) inUse.add(container.imageRef);
      if (container.imageId) inUse.add(container.imageId);
      if (container.image?.image) inUse.add(container.image.image);
    }
    const sandboxImage = this.#o.sandboxImage ?? PAUSE_IMAGE;
    const protectedIds = new Set<string>();
    const sandboxStatus = await this.#o.cri.imageStatus({ image: { image: sandboxImage } }).catch(() => undefined);
    if (sandboxStatus?.image) protectedIds.add(sandboxStatus.image.id);
    const present = new Set<string>();
    const removable: ImageRecord[] = [];
    for (const image of images) {
      present.add(image.id);
      const used = isUsed(image, inUse);
      const known = this.#known.get(image.id) ?? { firstDetected: now, lastUsed: used ? now : 0 };
      if (used) known.lastUsed = now;
      this.#known.set(image.id, known);
      const isSandbox = protectedIds.has(image.id) || image.repoTags.includes(sandboxImage);
      if (used || isSandbox || image.pinned) continue;
      removable.push({ id: image.id, size: Number(image.size), ...known });
    }
    for (const id of this.#known.keys()) if (!present.has(id)) this.#known.delete(id);
    return removable;
  }

  async #imageFilesystem(): Promise<ImageFilesystemUsage> {
    const info = await this.#o.cri.imageFsInfo();
    const mountpoint = info.imageFilesystems[0]?.fsId?.mountpoint;
    if (!mountpoint) throw new StatusError({ reason: 'InternalError', message: 'the runtime reported no image filesystem' });
    const stats = await statfs(mountpoint);
    return { capacityBytes: stats.blocks * stats.bsize, availableBytes: stats.bavail * stats.bsize };
  }

  #event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.#o.node) this.#o.events?.record(this.#o.node, type, reason, message);
  }
}

function isUsed(image: T.Image, inUse: ReadonlySet<string>): boolean {
  if (inUse.has(image.id)) return true;
  return image.repoTags.some((tag) => inUse.has(tag)) || image.repoDigests.some((digest) => inUse.has(digest));
}
