import { Observable } from 'rxjs';
import { labelSelectorFromSpec, matchesLabels, type KubeObject, type LabelSelector, type LabelSelectorSpec } from '../../src/api/index.js';
import type { Informer, InformerEvent } from '../../src/client/index.js';
import type { SyncedSource } from '../controller.js';
import { controllerOf } from '../controller-ref.js';

/**
 * The keys of the owners an orphan may belong to: each pod (or other object) added or changed
 * without a controller, and not being deleted, triggers every owner of its namespace whose
 * selector matches it (upstream's addPod/updatePod for orphans: "a matching controller may want
 * to adopt it"). Owners whose selector is absent or invalid match nothing. Selectors are parsed
 * once per owner version.
 */
export function orphanTriggers<O extends KubeObject, T extends KubeObject>(
  source: SyncedSource<InformerEvent<T>>,
  owners: Informer<O>,
  selectorOf: (owner: O) => LabelSelectorSpec | undefined,
): SyncedSource<string> {
  const parsed = new WeakMap<O, LabelSelector | null>();
  const selector = (owner: O): LabelSelector | null => {
    let found = parsed.get(owner);
    if (found === undefined) {
      const spec = selectorOf(owner);
      found = spec === undefined ? null : safeSelector(spec);
      parsed.set(owner, found);
    }
    return found;
  };
  const keys = new Observable<string>((subscriber) =>
    source.events$.subscribe({
      next: (event) => {
        if (event.type !== 'added' && event.type !== 'updated') return;
        const object = event.object;
        if (controllerOf(object) !== undefined || object.metadata.deletionTimestamp !== undefined) return;
        const namespace = object.metadata.namespace ?? '';
        for (const owner of owners.store.byIndex('namespace', namespace)) {
          const s = selector(owner);
          // An empty selector would adopt everything in the namespace: upstream validation refuses it; never adopt by it.
          if (s === null || s.requirements.length === 0 || !matchesLabels(s, object.metadata.labels)) continue;
          subscriber.next(`${namespace}/${owner.metadata.name!}`);
        }
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
  return { events$: keys, synced$: source.synced$ };
}

function safeSelector(spec: LabelSelectorSpec): LabelSelector | null {
  try {
    return labelSelectorFromSpec(spec);
  } catch {
    return null;
  }
}
