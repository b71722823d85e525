import type { PodTemplateSpec } from '../../src/api/index.js';
import { equalIgnoringHash, withoutHash } from './revisions.js';

/** A Deployment or a ReplicaSet: what has a pod template to compare. */
export interface TemplateOwner {
  readonly metadata: { readonly uid?: string | undefined; readonly generation?: number | undefined };
  readonly spec: { readonly template?: PodTemplateSpec | undefined };
}

/** Objects remembered by uid (FIFO beyond it): a few times the Deployments and sets of a big cluster. */
const DEFAULT_LIMIT = 8192;

/**
 * "The same template but for pod-template-hash" (upstream's EqualIgnoreHash, `equalIgnoringHash`)
 * asked of the same objects again and again, answered by comparing strings: each template is
 * written once as a canonical key (`templateKey`), and the key is remembered per object uid and
 * `metadata.generation`. The generation moves on every change outside metadata and status
 * (prepareForUpdate, as upstream), and the template is in the spec: a status write — a
 * ReplicaSet's on each pod that turns Ready, its Deployment's after it — makes a new version with
 * the same generation, whose template is not read again. Before, each of a sync's several looks
 * for the new set spread both templates (through the lazy views' proxies) and deep-compared them:
 * at 50,000 pods, a third of the manager's CPU.
 *
 * Remembers at most `limit` objects (the oldest forgotten first); an object without a uid or a
 * generation (not from the server) is not remembered. A template the key cannot write (a value
 * that is not JSON's) is compared by `equalIgnoringHash` itself.
 */
export class TemplateKeys {
  readonly #byUid = new Map<string, { readonly generation: number; readonly key: string | null }>();

  constructor(readonly limit: number = DEFAULT_LIMIT) {}

  /** The key of the owner's template; null when it has none that `templateKey` can write. */
  keyOf(owner: TemplateOwner): string | null {
    const { uid, generation } = owner.metadata;
    if (uid === undefined || generation === undefined) return templateKey(owner.spec.template);
    const known = this.#byUid.get(uid);
    if (known !== undefined && known.generation === generation) return known.key;
    const key = templateKey(owner.spec.template);
    // Deleted first: an updated uid goes to the end of the line.
    this.#byUid.delete(uid);
    this.#byUid.set(uid, { generation, key });
    if (this.#byUid.size > this.limit) this.#byUid.delete(this.#byUid.keys().next().value!);
    return key;
  }

  /** Whether the two templates are equal but for the pod-template-hash label. */
  same(a: TemplateOwner, b: TemplateOwner): boolean {
    const ka = this.keyOf(a);
    const kb = this.keyOf(b);
    return ka !== null && kb !== null ? ka === kb : equalIgnoringHash(a.spec.template, b.spec.template);
  }

  get size(): number {
    return this.#byUid.size;
  }
}

/**
 * The template without its pod-template-hash label, written so that two keys are equal exactly
 * when `equalIgnoringHash` (node's isDeepStrictEqual) finds the templates equal: object members
 * in sorted order (member order does not count), a member that is there but undefined written
 * (`{a: undefined}` is not `{}`), -0 apart from 0, strings quoted. Null when a value is not plain
 * JSON (another prototype, a symbol key, a hole, a function): the caller then compares deeply.
 */
export function templateKey(template: PodTemplateSpec | undefined): string | null {
  return write(withoutHash(template));
}

function write(value: unknown): string | null {
  switch (typeof value) {
    case 'undefined':
      return 'u';
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null) return 'n';
  if (Array.isArray(value)) {
    if (Object.keys(value).length !== value.length) return null;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = write(value[i]);
      if (item === null) return null;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.getOwnPropertySymbols(value).length > 0) return null;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const member = write(record[keys[i]!]);
    if (member === null) return null;
    out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${member}`;
  }
  return `${out}}`;
}
