import { asyncScheduler, tap, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import type { Client, InformerEvent } from '../client/index.js';
import type { ControllerResult } from '../../controllers/index.js';
import { recordedResult, toNdjson, type CachedSource, type EventLine, type RecordedWrite, type RecordingLine } from './recording.js';
import type { TestCluster } from './test-cluster.js';
import type { TappedWrite } from './write-tap.js';

let recorders = 0;

const WATCH_TYPE: Record<InformerEvent<KubeObject>['type'], EventLine['type']> = { added: 'ADDED', updated: 'MODIFIED', deleted: 'DELETED', resync: 'RESYNC' };

export interface RecorderOptions {
  /** The controller's clock (the `at` of each line). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Records a controller's run on a test cluster: the events of each source it reads, the writes
 * its client makes with the server's answers, and its results, as NDJSON (see `RecordingLine`).
 * Give the controller `recorder.client`, the sources through `recorder.source(...)`, and pipe its
 * results through `recorder.results()`; `Replayer` plays the recording back.
 *
 * @example
 * const recorder = new Recorder(cluster);
 * const widgets = recorder.source('for', new Informer(cluster.client, Widget.resource));
 * const run = widgetController(widgets, recorder.client).pipe(recorder.results()).subscribe();
 * ... // drive the cluster
 * writeFileSync('widgets.ndjson', recorder.toNdjson());
 */
export class Recorder {
  readonly #lines: RecordingLine[] = [];
  readonly #scheduler: SchedulerLike;
  readonly #start: number;
  readonly #stopTap: () => void;
  /** The `User-Agent` the server tells this recorder's writes by. */
  readonly userAgent: string;
  /** A client whose writes are recorded (with their answers). */
  readonly client: Client;

  constructor(cluster: TestCluster, options: RecorderOptions = {}) {
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#start = this.#scheduler.now();
    this.userAgent = `svc-testing/recorder-${++recorders}`;
    this.client = cluster.newClient({ userAgent: this.userAgent });
    this.#stopTap = cluster.writeTap.listen(this.userAgent, (write) => this.#lines.push({ at: this.#now(), write: recordedWrite(write) }));
  }

  /** `source` as it is, with what the controller gets from it recorded under `name`. */
  source<T extends KubeObject>(name: string, source: CachedSource<T>): CachedSource<T> {
    return {
      store: source.store,
      synced$: source.synced$.pipe(
        tap((synced) => {
          if (synced) this.#lines.push({ at: this.#now(), source: name, type: 'SYNCED', objects: source.store.list() });
        }),
      ),
      events$: source.events$.pipe(
        tap((event) =>
          this.#lines.push({
            at: this.#now(),
            source: name,
            type: WATCH_TYPE[event.type],
            object: event.object,
            ...(event.type === 'deleted' && event.finalStateUnknown ? { finalStateUnknown: true } : {}),
          }),
        ),
      ),
    };
  }

  /** Records each result that passes. */
  results<R>(): MonoTypeOperatorFunction<ControllerResult<R>> {
    return tap((result) => this.#lines.push({ at: this.#now(), result: recordedResult(result) }));
  }

  /** The lines so far. */
  lines(): readonly RecordingLine[] {
    return this.#lines;
  }

  toNdjson(): string {
    return toNdjson(this.#lines);
  }

  /** Stops recording writes (events and results stop with their subscriptions). */
  stop(): void {
    this.#stopTap();
  }

  #now(): number {
    return this.#scheduler.now() - this.#start;
  }
}

export function recordedWrite(write: TappedWrite): RecordedWrite {
  const request = bodyFields(write.request, write.requestType);
  const answer = bodyFields(write.body, write.contentType);
  return {
    method: write.method,
    path: write.path,
    ...(request.json !== undefined ? { request: request.json } : {}),
    ...(request.base64 !== undefined ? { requestBase64: request.base64 } : {}),
    ...(write.requestType ? { requestType: write.requestType } : {}),
    code: write.code,
    ...(write.contentType ? { contentType: write.contentType } : {}),
    ...(answer.json !== undefined ? { body: answer.json } : {}),
    ...(answer.base64 !== undefined ? { bodyBase64: answer.base64 } : {}),
  };
}

/** A body as JSON when it is JSON, else as base64 (protobuf, YAML). */
function bodyFields(body: Buffer | undefined, type: string | undefined): { json?: unknown; base64?: string } {
  if (body === undefined || body.length === 0) return {};
  if (type?.includes('json')) {
    try {
      return { json: JSON.parse(body.toString('utf8')) as unknown };
    } catch {
      // Not JSON after all: kept as bytes.
    }
  }
  return { base64: body.toString('base64') };
}

