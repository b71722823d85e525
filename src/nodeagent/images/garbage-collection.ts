/**
 * The agent's collection loops: dead containers every minute, images every five minutes (the
 * kubelet's periods). A pass never overlaps the previous one of its kind; a failed pass is
 * reported and the loop goes on.
 */
import type { ContainerGarbageCollector } from './container-gc.js';
import type { ImageGarbageCollector } from './image-gc.js';

export const CONTAINER_GC_PERIOD_MS = 60_000;
export const IMAGE_GC_PERIOD_MS = 300_000;

export interface GarbageCollectionOptions {
  readonly containers?: ContainerGarbageCollector | undefined;
  readonly images?: ImageGarbageCollector | undefined;
  /** Until every pod source was read, containers of pods not known yet are kept. */
  readonly allSourcesReady?: () => boolean;
  readonly containerPeriodMs?: number;
  readonly imagePeriodMs?: number;
  readonly onError?: (what: 'containers' | 'images', error: unknown) => void;
}

export function startGarbageCollection(options: GarbageCollectionOptions): { stop(): void } {
  const timers: NodeJS.Timeout[] = [];
  const { containers, images } = options;
  if (containers) {
    timers.push(
      setInterval(() => {
        containers.collect(options.allSourcesReady?.() ?? true).then(
          (result) => {
            for (const error of result.errors) options.onError?.('containers', new Error(error));
          },
          (error: unknown) => options.onError?.('containers', error),
        );
      }, options.containerPeriodMs ?? CONTAINER_GC_PERIOD_MS),
    );
  }
  if (images) {
    timers.push(
      setInterval(() => {
        images.collect().catch((error: unknown) => options.onError?.('images', error));
      }, options.imagePeriodMs ?? IMAGE_GC_PERIOD_MS),
    );
  }
  for (const timer of timers) timer.unref();
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
