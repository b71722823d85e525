import { BehaviorSubject, type Observable } from 'rxjs';
import type { CountedType, KubeObject } from '../../src/api/index.js';
import { builtin, type DiscoveryCache, type Informer, type InformerFactory, type Resource } from '../../src/client/index.js';

/** Types whose usage reads more than metadata: their informers cache whole objects. */
const WHOLE_OBJECTS = new Set(['/pods', '/services', '/persistentvolumeclaims']);

const typeKey = (type: CountedType) => `${type.group}/${type.resource}`;

/**
 * The informers of the types quotas count, made as quotas name them: pods, services and claims
 * whole (their usage reads their spec), every other type metadata only (an object count). A type
 * svc does not serve is looked up by discovery each time it is asked for, and counts nothing until
 * it is served (a custom resource created later).
 */
export class CountedInformers {
  readonly #known = new Map<string, Informer<KubeObject>>();
  readonly #types = new BehaviorSubject<readonly CountedType[]>([]);

  constructor(
    private readonly discovery: DiscoveryCache,
    private readonly informers: InformerFactory,
  ) {}

  /** The types informed so far; emits when one is added (never removed: a quota may name it again). */
  get types$(): Observable<readonly CountedType[]> {
    return this.#types;
  }

  /** The informer of a counted type, made and synced; undefined when the server does not serve it. */
  async informer(type: CountedType): Promise<Informer<KubeObject> | undefined> {
    let informer = this.#known.get(typeKey(type));
    if (!informer) {
      const resource = await this.#resolve(type);
      if (!resource) return undefined;
      informer = this.informers.informer<KubeObject>(resource, WHOLE_OBJECTS.has(typeKey(type)) ? {} : { metadataOnly: true });
      this.#known.set(typeKey(type), informer);
      this.#types.next([...this.#types.value, type]);
    }
    await informer.waitForSync();
    return informer;
  }

  /** The informer already made for a type, if any (no lookup). */
  cached(type: CountedType): Informer<KubeObject> | undefined {
    return this.#known.get(typeKey(type));
  }

  async #resolve(type: CountedType): Promise<Resource | undefined> {
    const known = Object.values(builtin).find((r: Resource) => r.group === type.group && r.resource === type.resource);
    if (known) return known.namespaced ? known : undefined;
    const { resources } = await this.discovery.current();
    const found = resources.find((r) => r.group === type.group && r.resource === type.resource);
    return found && found.namespaced && found.verbs.includes('list') && found.verbs.includes('watch') ? found : undefined;
  }
}
