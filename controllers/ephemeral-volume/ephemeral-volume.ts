import { type Observable } from 'rxjs';
import { ephemeralClaimName, isStatusError, type PersistentVolumeClaim, type Pod } from '../../src/api/index.js';
import { builtin, type InvolvedObject } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { controllerRef, isControlledBy } from '../controller-ref.js';

export interface EphemeralVolumeControllerOptions {
  /** `--concurrent-ephemeralvolume-syncs` (5). */
  readonly concurrency?: number | undefined;
}

// Upstream's controller name (`--controllers` also accepts `ephemeral-volume`).
const NAME = 'ephemeral-volume-controller';
const POD_TYPE = { group: '', version: 'v1', kind: 'Pod' } as const;

const podAbout = (pod: Pod): InvolvedObject => ({ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace, uid: pod.metadata.uid });

/**
 * Generic ephemeral volumes: for each `ephemeral` volume of a pod, the claim `<pod>-<volume>` made
 * from its `volumeClaimTemplate`, controlled by the pod (so the garbage collector deletes it with
 * the pod). A claim of that name that the pod does not control is never taken over: the pod gets
 * a Warning Event naming it, and its node agent keeps waiting (as upstream). Triggers: pods, and
 * claims owned by pods (a deleted claim is made again while its pod lives).
 */
export function ephemeralVolumeController(ctx: ControllerContext, options: EphemeralVolumeControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const pods = ctx.informers.informer(builtin.pods);
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: pods,
    owns: [{ events: claims, group: '', kind: 'Pod' }],
    concurrency: options.concurrency ?? 5,
    reconcile: async (key) => {
      const pod = pods.store.get(key);
      if (!pod || pod.metadata.deletionTimestamp) return;
      const namespace = pod.metadata.namespace ?? '';
      for (const volume of pod.spec.volumes ?? []) {
        const template = volume.ephemeral?.volumeClaimTemplate;
        if (!template) continue;
        const name = ephemeralClaimName(pod.metadata.name ?? '', volume.name);
        const existing = claims.store.get(`${namespace}/${name}`);
        if (existing) {
          if (!isControlledBy(existing, pod)) {
            ctx.events.record(podAbout(pod), 'Warning', 'FailedBinding', `PVC ${name} was not created for pod ${namespace}/${pod.metadata.name ?? ''} (pod is not owner)`);
          }
          continue;
        }
        const meta = (template.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
        const claim: PersistentVolumeClaim = {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name,
            namespace,
            ...(meta.labels ? { labels: { ...meta.labels } } : {}),
            ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
            ownerReferences: [controllerRef(pod, POD_TYPE)],
          },
          spec: template.spec,
        };
        try {
          await ctx.client.create(builtin.persistentVolumeClaims, claim, { namespace });
        } catch (error) {
          if (isStatusError(error) && error.code === 409) continue; // made meanwhile: the next event looks at whose it is
          if (isStatusError(error) && error.code === 422) {
            ctx.events.record(podAbout(pod), 'Warning', 'FailedCreate', `ephemeral volume ${volume.name}: ${error.message}`);
            continue;
          }
          throw error;
        }
      }
    },
  });
}
