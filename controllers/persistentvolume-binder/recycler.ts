import { isStatusError, type PersistentVolume, type Pod } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { bytesOf } from '../volume-matching/index.js';

/** The recycler options of the spec (`--pv-recycler-*`), for host-path and NFS volumes. */
export interface RecyclerOptions {
  /** `--pv-recycler-minimum-timeout-hostpath` (60 s). */
  readonly minimumTimeoutHostPath?: number | undefined;
  /** `--pv-recycler-timeout-increment-hostpath` (30 s per Gi). */
  readonly timeoutIncrementHostPath?: number | undefined;
  /** `--pv-recycler-minimum-timeout-nfs` (300 s). */
  readonly minimumTimeoutNfs?: number | undefined;
  /** `--pv-recycler-increment-timeout-nfs` (30 s per Gi). */
  readonly timeoutIncrementNfs?: number | undefined;
  /** `--pv-recycler-pod-template-filepath-hostpath`'s pod, read when the manager starts. */
  readonly hostPathTemplate?: Pod | undefined;
  /** `--pv-recycler-pod-template-filepath-nfs`'s pod. */
  readonly nfsTemplate?: Pod | undefined;
  /** Image of the default scrubber pod (svc's local busybox). */
  readonly image?: string | undefined;
}

export type RecycleOutcome = { readonly type: 'running' } | { readonly type: 'done' } | { readonly type: 'failed'; readonly message: string };

/** Where the scrubber pods run (upstream: `default`). */
export const RECYCLER_NAMESPACE = 'default';
/** The volume's name in the scrubber pod (upstream's template names it `vol`). */
const SCRUB_VOLUME = 'vol';
const GI = 1024 ** 3;

/** A scrubber pod's name for a volume. */
export const recyclerPodName = (volume: PersistentVolume): string => `recycler-for-${volume.metadata.name ?? ''}`;

/**
 * Recycle, as upstream: a scrubber pod mounts the volume at /scrub and removes everything in it
 * (`rm -rf`), with an ActiveDeadlineSeconds of max(minimum, increment × size in Gi). The volume is
 * Available again once the pod succeeded; a failed pod makes it Failed. Host-path and NFS
 * volumes only (upstream's two recyclable plugins); anything else fails at once.
 */
export class Recycler {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly options: RecyclerOptions,
  ) {}

  async recycle(volume: PersistentVolume): Promise<RecycleOutcome> {
    const name = recyclerPodName(volume);
    let pod: Pod | undefined;
    try {
      pod = await this.ctx.client.get(builtin.pods, name, { namespace: RECYCLER_NAMESPACE });
    } catch (error) {
      if (!isStatusError(error, 'NotFound')) throw error;
    }
    if (pod && pod.metadata.annotations?.['svc.io/recycled-volume-uid'] !== volume.metadata.uid) {
      await this.remove(name); // a leftover of another volume of this name
      return { type: 'running' };
    }
    if (!pod) {
      const made = this.scrubber(volume);
      if ('message' in made) return { type: 'failed', message: made.message };
      await this.ctx.client.create(builtin.pods, made.pod, { namespace: RECYCLER_NAMESPACE });
      return { type: 'running' };
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded') {
      await this.remove(name);
      return { type: 'done' };
    }
    if (phase === 'Failed') {
      await this.remove(name);
      return { type: 'failed', message: `Recycle failed: scrubber pod ${RECYCLER_NAMESPACE}/${name} failed${pod.status?.message ? `: ${pod.status.message}` : ''}` };
    }
    return { type: 'running' };
  }

  private async remove(name: string): Promise<void> {
    try {
      await this.ctx.client.delete(builtin.pods, name, { namespace: RECYCLER_NAMESPACE, gracePeriodSeconds: 0 });
    } catch (error) {
      if (!isStatusError(error, 'NotFound')) throw error;
    }
  }

  private scrubber(volume: PersistentVolume): { pod: Pod } | { message: string } {
    const o = this.options;
    const gi = Math.ceil((bytesOf(volume.spec.capacity.storage) ?? 0) / GI);
    let source: Record<string, unknown>;
    let deadline: number;
    let template: Pod | undefined;
    if (volume.spec.hostPath) {
      source = { hostPath: { path: volume.spec.hostPath.path } };
      deadline = Math.max(o.minimumTimeoutHostPath ?? 60, (o.timeoutIncrementHostPath ?? 30) * gi);
      template = o.hostPathTemplate;
    } else if (volume.spec.nfs) {
      source = { nfs: { server: volume.spec.nfs.server, path: volume.spec.nfs.path } };
      deadline = Math.max(o.minimumTimeoutNfs ?? 300, (o.timeoutIncrementNfs ?? 30) * gi);
      template = o.nfsTemplate;
    } else {
      return { message: 'Recycle failed: only host-path and NFS volumes can be recycled' };
    }
    const base: Pod = template ?? {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {},
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'pv-recycler',
            image: o.image ?? 'svc.local/busybox:latest',
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/sh', '-c', 'test -e /scrub && find /scrub -mindepth 1 -delete && test -z "$(ls -A /scrub)" || exit 1'],
            volumeMounts: [{ name: SCRUB_VOLUME, mountPath: '/scrub' }],
          },
        ],
      },
    };
    const affinity = volume.spec.nodeAffinity as { required?: unknown } | undefined;
    const volumes = (base.spec.volumes ?? []).filter((v) => v.name !== SCRUB_VOLUME);
    const pod: Pod = {
      ...base,
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...base.metadata, name: recyclerPodName(volume), namespace: RECYCLER_NAMESPACE, annotations: { ...base.metadata.annotations, 'svc.io/recycled-volume-uid': volume.metadata.uid ?? '' } },
      spec: {
        ...base.spec,
        activeDeadlineSeconds: deadline,
        volumes: [...volumes, { name: SCRUB_VOLUME, ...source }],
        ...(affinity?.required ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: affinity.required } } } : {}),
      },
    };
    return { pod };
  }
}
