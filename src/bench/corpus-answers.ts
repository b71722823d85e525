import type { KubeObject } from '../api/index.js';
import { applyMergePatch } from '../apiserver/index.js';
import type { TappedWrite, WriteAnswerer } from '../testing/index.js';

type Answer = ReturnType<WriteAnswerer>;

/** `plural/namespace/name` of a request path (`/api/v1/namespaces/ns/pods/a/status` → `pods/ns/a`). */
function objectPath(path: string): { key: string; plural: string; name: string | undefined } | undefined {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  if (!rest || rest.length === 0) return undefined;
  const [plural, name, namespace] = rest[0] === 'namespaces' && rest.length >= 3 ? [rest[2]!, rest[3], rest[1]!] : [rest[0]!, rest[1], ''];
  return { key: `${plural}/${namespace}/${name ?? ''}`, plural, name };
}

const json = (code: number, body: unknown): NonNullable<Answer> => ({ code, contentType: 'application/json', body: Buffer.from(JSON.stringify(body)) });

const notFound = (plural: string, name: string): NonNullable<Answer> =>
  json(404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${plural} "${name}" not found`, reason: 'NotFound', details: { name, kind: plural }, code: 404 });

/**
 * Answers a loop's writes during a replay benchmark, as a server would but without storing
 * anything: the recorded events are the world, and what the loop writes changes only the counts.
 * A create gets its object back with a name (for `generateName`), uid and resourceVersion, made
 * from a counter so a run is the same as the last; an update its object with the next
 * resourceVersion; a merge patch the corpus's latest state of the object with the patch applied
 * (other patch types: that state unpatched); a delete a Success Status. A patch or delete of an
 * object the corpus never had is a 404, as the server would say.
 */
export class CorpusAnswers {
  readonly #objects = new Map<string, KubeObject>();
  #serial = 0;

  /** Keeps `object`'s latest recorded state (undefined: it was deleted), for patch answers. */
  track(source: string, object: KubeObject, deleted: boolean): void {
    const key = `${source.split('.')[0]}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
    if (deleted) this.#objects.delete(key);
    else this.#objects.set(key, object);
  }

  readonly answer: WriteAnswerer = (write: Pick<TappedWrite, 'method' | 'path' | 'request' | 'requestType'>): Answer => {
    const target = objectPath(write.path);
    const body = write.request && (write.requestType ?? '').includes('json') ? (JSON.parse(write.request.toString('utf8')) as unknown) : undefined;
    const serial = ++this.#serial;
    const version = String(1_000_000 + serial);
    switch (write.method) {
      case 'POST': {
        const object = (body ?? {}) as KubeObject;
        const metadata = object.metadata ?? {};
        const name = metadata.name ?? `${metadata.generateName ?? 'object-'}${serial.toString(36).padStart(5, '0')}`;
        return json(201, { ...object, metadata: { ...metadata, name, uid: `bench-uid-${serial}`, resourceVersion: version, creationTimestamp: metadata.creationTimestamp ?? '2026-01-01T00:00:00Z' } });
      }
      case 'PUT': {
        const object = (body ?? {}) as KubeObject;
        return json(200, { ...object, metadata: { ...object.metadata, resourceVersion: version } });
      }
      case 'PATCH': {
        const current = target && this.#objects.get(target.key);
        if (!current) return notFound(target?.plural ?? 'object', target?.name ?? '');
        const patched = (write.requestType ?? '').startsWith('application/merge-patch+json') ? (applyMergePatch(current, body) as KubeObject) : current;
        return json(200, { ...patched, metadata: { ...patched.metadata, resourceVersion: version } });
      }
      case 'DELETE': {
        if (target?.name !== undefined && !this.#objects.has(target.key)) return notFound(target.plural, target.name);
        return json(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: target?.name, kind: target?.plural } });
      }
      default:
        return undefined;
    }
  };
}
