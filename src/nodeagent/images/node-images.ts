/**
 * The Node's `status.images`: what the scheduler's image-locality scoring and `kubectl describe
 * node` read. Largest first, capped by `--node-status-max-images`, at most five names per image
 * (repo digests, then tags), as the kubelet reports them. The runtime's list is cached for a short
 * while: the node status is read every second, the image list changes on pulls, imports and GC.
 */
import type { CriClient } from '../cri/index.js';
import type * as T from '../cri/index.js';

export interface NodeImage {
  readonly names: string[];
  readonly sizeBytes: number;
}

export const MAX_NAMES_PER_IMAGE = 5;
export const NODE_IMAGES_CACHE_MS = 30_000;

/** Orders and caps the runtime's images for the Node status; `maxImages` < 0 keeps all. */
export function nodeStatusImages(images: readonly T.Image[], maxImages: number): NodeImage[] {
  const listed = images
    .map((image) => ({ names: [...image.repoDigests, ...image.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: Number(image.size) }))
    .filter((image) => image.names.length > 0)
    .sort((a, b) => b.sizeBytes - a.sizeBytes);
  return maxImages < 0 ? listed : listed.slice(0, maxImages);
}

export interface NodeImagesOptions {
  readonly cri: Pick<CriClient, 'listImages'>;
  /** `--node-status-max-images`: -1 no cap. */
  readonly maxImages: number;
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/**
 * A cached reader of the node's images for the node status (`startNodeStatus({ images })`).
 * A failed listing returns the last good one, so a runtime hiccup does not blank the list.
 */
export function nodeImagesReader(options: NodeImagesOptions): { read(): Promise<NodeImage[]>; invalidate(): void } {
  const cacheMs = options.cacheMs ?? NODE_IMAGES_CACHE_MS;
  const now = options.now ?? Date.now;
  let cached: NodeImage[] = [];
  let readAt = -Infinity;
  let pending: Promise<NodeImage[]> | undefined;
  return {
    read() {
      if (now() - readAt < cacheMs) return Promise.resolve(cached);
      pending ??= options.cri
        .listImages({})
        .then(
          (response) => {
            cached = nodeStatusImages(response.images, options.maxImages);
            readAt = now();
            return cached;
          },
          () => cached,
        )
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
    invalidate() {
      readAt = -Infinity;
    },
  };
}
