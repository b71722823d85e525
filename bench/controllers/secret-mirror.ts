// The controller the controller benches measure (issue #21), and the restart test runs at small
// scale: each ConfigMap labelled mirror=source owns a Secret of the same name holding its data.
// It writes only what differs from its caches: at the desired state a reconcile writes nothing.
import type { Observable, SchedulerLike } from 'rxjs';
import { isStatusError, type KubeObject } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { controller, controllerRef, type ControllerResult } from '../../controllers/index.js';
import type { CachedSource } from '../../src/testing/index.js';

export type SourceConfigMap = KubeObject & { data?: Record<string, string> };
export type MirrorSecret = KubeObject & { data?: Record<string, string> };

export const MIRROR_LABEL = 'mirror=source';
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' } as const;

export interface SecretMirrorOptions {
  readonly configMaps: CachedSource<SourceConfigMap>;
  readonly secrets: CachedSource<MirrorSecret>;
  readonly client: Client;
  readonly concurrency?: number;
  readonly scheduler?: SchedulerLike;
  /** Called first thing in every reconcile (the latency bench stamps it). */
  readonly onStart?: (key: string) => void;
}

/** The Secret data a ConfigMap's data becomes (Secret values are base64). */
export function mirroredData(cm: SourceConfigMap): Record<string, string> {
  return Object.fromEntries(Object.entries(cm.data ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
}

const sameData = (a: Record<string, string> = {}, b: Record<string, string> = {}): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

export function secretMirror(options: SecretMirrorOptions): Observable<ControllerResult> {
  const { configMaps, secrets, client } = options;
  return controller({
    name: 'secret-mirror',
    for: configMaps,
    owns: [{ events: secrets, group: '', kind: 'ConfigMap' }],
    concurrency: options.concurrency ?? 4,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    reconcile: async (key) => {
      options.onStart?.(key);
      const cm = configMaps.store.get(key);
      if (!cm) return; // its Secret goes with it (garbage collection)
      const data = mirroredData(cm);
      const secret = secrets.store.get(key);
      const namespace = cm.metadata.namespace!;
      if (!secret) {
        try {
          await client.create(
            builtin.secrets,
            { apiVersion: 'v1', kind: 'Secret', metadata: { name: cm.metadata.name!, namespace, ownerReferences: [controllerRef(cm, CONFIGMAP)] }, data } as never,
            { namespace },
          );
        } catch (error) {
          if (!isStatusError(error, 'AlreadyExists')) throw error; // the cache will show it
        }
        return;
      }
      if (!sameData(secret.data, data)) await client.patch(builtin.secrets, secret.metadata.name!, { data }, { namespace });
    },
  });
}
