import { Observable, Subject } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import { Client, InformerFactory, type ClientOptions, type Resource, type WatcherEvent, type WatchOptions } from '../client/index.js';
import type { EventLine } from '../testing/index.js';

/** A recorded source's name as `svc record` writes it: the plural, then `.group` unless core. */
export const sourceName = (resource: Pick<Resource<KubeObject>, 'resource' | 'group'>): string =>
  resource.group === '' ? resource.resource : `${resource.resource}.${resource.group}`;

/**
 * A real `Client` whose watches are the corpus: the informers a loop makes list and watch
 * nothing on the server, their first list and events are the recorded ones (fed by
 * `CorpusWatches.apply`), while every other request — the loop's writes — goes to the server.
 * The informers are the client's own (its cache code and indexes); only the watch stream is
 * replaced, which is why they must decode `eager` (a recording holds plain objects).
 */
class CorpusClient extends Client {
  constructor(
    options: ClientOptions,
    private readonly watches: CorpusWatches,
  ) {
    super(options);
  }

  override watch$<T extends KubeObject>(res: Resource<T>, options: WatchOptions = {}): Observable<WatcherEvent<T>> {
    if (options.decode !== undefined && options.decode !== 'eager') {
      throw new TypeError(`a corpus-fed informer of ${sourceName(res)} must decode 'eager' (a recording holds plain objects), not '${options.decode}'`);
    }
    return this.watches.stream<T>(sourceName(res), res.namespaced ? options.namespace : undefined);
  }
}

interface Feed {
  readonly subject: Subject<WatcherEvent<KubeObject>>;
  readonly namespace: string | undefined;
}

/**
 * The recorded watch streams of a corpus, handed to the informers of a loop under benchmark.
 * Each informer subscribes at its start; `apply` then plays one recorded line to every
 * informer of that source (a `SYNCED` line is its first list). A source the corpus never syncs
 * is synced empty by `syncRest`, so a loop that also watches a type the corpus lacks can start.
 */
export class CorpusWatches {
  readonly #feeds = new Map<string, Feed[]>();
  readonly #synced = new Set<string>();

  /** A client for `options`' server whose watches are this corpus. */
  client(options: ClientOptions): Client {
    return new CorpusClient(options, this);
  }

  /** Shared informers over the corpus: eager decoding, no resync. */
  informers(client: Client): InformerFactory {
    return new InformerFactory(client, { decode: 'eager' });
  }

  stream<T extends KubeObject>(source: string, namespace: string | undefined): Observable<WatcherEvent<T>> {
    return new Observable<WatcherEvent<T>>((subscriber) => {
      const feed: Feed = { subject: new Subject(), namespace };
      const subscription = feed.subject.subscribe(subscriber as unknown as Subject<WatcherEvent<KubeObject>>);
      const feeds = this.#feeds.get(source) ?? [];
      feeds.push(feed);
      this.#feeds.set(source, feeds);
      subscriber.next({ type: 'INIT', reason: 'start' });
      return () => {
        subscription.unsubscribe();
        feeds.splice(feeds.indexOf(feed), 1);
      };
    });
  }

  /** Whether some informer watches `source` (its events reach the loop). */
  watched(source: string): boolean {
    return (this.#feeds.get(source)?.length ?? 0) > 0;
  }

  /** Plays one recorded event line to the informers of its source; false when none watches it. */
  apply(line: EventLine): boolean {
    const feeds = this.#feeds.get(line.source);
    if (!feeds || feeds.length === 0) return false;
    for (const feed of [...feeds]) {
      const inScope = (object: KubeObject) => feed.namespace === undefined || object.metadata.namespace === feed.namespace;
      if (line.type === 'SYNCED') {
        for (const object of line.objects ?? []) if (inScope(object)) feed.subject.next({ type: 'INIT_APPLY', object });
        feed.subject.next({ type: 'INIT_DONE', resourceVersion: '0' });
      } else if (line.type !== 'RESYNC' && line.object && inScope(line.object)) {
        feed.subject.next({ type: line.type, object: line.object });
      }
    }
    if (line.type === 'SYNCED') this.#synced.add(line.source);
    return true;
  }

  /** Syncs empty every watched source that no SYNCED line of the corpus will sync (call before the first line). */
  syncRest(syncedByCorpus: ReadonlySet<string>): void {
    for (const [source, feeds] of this.#feeds) {
      if (this.#synced.has(source) || syncedByCorpus.has(source)) continue;
      this.#synced.add(source);
      for (const feed of feeds) feed.subject.next({ type: 'INIT_DONE', resourceVersion: '0' });
    }
  }
}
