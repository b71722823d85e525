import { isDeepStrictEqual } from 'node:util';
import type { Deployment, PodTemplateSpec, ReplicaSet } from '../../src/api/index.js';

/** The label that ties a ReplicaSet and its pods to one version of the template. */
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/**
 * The annotations of a rollout, under the name kubectl reads (`deployment.kubernetes.io/…`) and
 * svc's own (`deployment.svc.io/…`); both are written, the upstream one is read first.
 */
export const ANNOTATION = {
  revision: ['deployment.kubernetes.io/revision', 'deployment.svc.io/revision'],
  revisionHistory: ['deployment.kubernetes.io/revision-history', 'deployment.svc.io/revision-history'],
  desiredReplicas: ['deployment.kubernetes.io/desired-replicas', 'deployment.svc.io/desired-replicas'],
  maxReplicas: ['deployment.kubernetes.io/max-replicas', 'deployment.svc.io/max-replicas'],
} as const;

/** The old way of asking for a rollback (extensions/v1beta1); never copied to ReplicaSets. */
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const NOT_COPIED = new Set<string>([LAST_APPLIED, ROLLBACK_TO, ...Object.values(ANNOTATION).flat()]);

/** Upstream's limit on the revision-history annotation. */
const MAX_REVISION_HISTORY_CHARS = 2000;

type Annotations = Record<string, string>;

const read = (annotations: Readonly<Annotations> | undefined, names: readonly string[]): string | undefined => {
  for (const name of names) if (annotations?.[name] !== undefined) return annotations[name];
  return undefined;
};
const write = (annotations: Annotations, names: readonly string[], value: string): void => {
  for (const name of names) annotations[name] = value;
};

/** A ReplicaSet's (or Deployment's) revision; 0 when absent or not a number. */
export function revisionOf(object: { readonly metadata: { readonly annotations?: Readonly<Annotations> | undefined } }): number {
  const text = read(object.metadata.annotations, ANNOTATION.revision);
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : 0;
}

export const maxRevision = (sets: readonly ReplicaSet[]): number => sets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);

export function intAnnotation(rs: ReplicaSet, names: readonly string[]): number | undefined {
  const text = read(rs.metadata.annotations, names);
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

/** The template without the pod-template-hash label: what "the same template" means. */
export function withoutHash(template: PodTemplateSpec | undefined): unknown {
  if (!template) return undefined;
  const labels = { ...template.metadata?.labels };
  delete labels[POD_TEMPLATE_HASH];
  return { ...template, metadata: { ...template.metadata, labels } };
}

/** Whether two templates are equal but for the pod-template-hash label (upstream's EqualIgnoreHash). */
export const equalIgnoringHash = (a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean => isDeepStrictEqual(withoutHash(a), withoutHash(b));

/**
 * Copies the Deployment's own annotations onto its ReplicaSet (not the rollout's, nor the
 * last-applied configuration), as upstream's copyDeploymentAnnotationsToReplicaSet; answers
 * whether anything changed.
 */
export function copyDeploymentAnnotations(d: Deployment, annotations: Annotations): boolean {
  let changed = false;
  for (const [key, value] of Object.entries(d.metadata.annotations ?? {})) {
    if (NOT_COPIED.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  return changed;
}

/** Sets desired-replicas and max-replicas; answers whether they changed. */
export function setReplicasAnnotations(annotations: Annotations, desired: number, max: number): boolean {
  const changed = ANNOTATION.desiredReplicas.some((name) => annotations[name] !== String(desired)) || ANNOTATION.maxReplicas.some((name) => annotations[name] !== String(max));
  write(annotations, ANNOTATION.desiredReplicas, String(desired));
  write(annotations, ANNOTATION.maxReplicas, String(max));
  return changed;
}

export const replicasAnnotationsNeedUpdate = (rs: ReplicaSet, desired: number, max: number): boolean => setReplicasAnnotations({ ...rs.metadata.annotations }, desired, max);

/**
 * The new ReplicaSet's annotations for `revision` (upstream's SetNewReplicaSetAnnotations): the
 * Deployment's own ones copied, the revision raised when it is higher than the set's (a set that
 * had a revision and gets a higher one is a rollback to it: its old revision goes into the
 * revision history, within 2000 characters), and for a set not created yet its replicas ones.
 * Answers whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, annotations: Annotations, revision: number, exists: boolean, desired: number, max: number): boolean {
  let changed = copyDeploymentAnnotations(d, annotations);
  const oldText = read(annotations, ANNOTATION.revision);
  const old = oldText === undefined ? 0 : /^\d+$/.test(oldText) ? Number(oldText) : undefined;
  if (old === undefined) return changed;
  if (old < revision) {
    write(annotations, ANNOTATION.revision, String(revision));
    changed = true;
  }
  if (oldText !== undefined && old < revision) {
    const history = read(annotations, ANNOTATION.revisionHistory) ?? '';
    if (history === '') {
      write(annotations, ANNOTATION.revisionHistory, oldText);
    } else {
      let kept = history.split(',');
      let length = history.length + oldText.length + 1;
      while (length > MAX_REVISION_HISTORY_CHARS && kept.length > 0) length -= kept.shift()!.length + 1;
      if (length <= MAX_REVISION_HISTORY_CHARS) write(annotations, ANNOTATION.revisionHistory, [...kept, oldText].join(','));
    }
  }
  if (!exists && setReplicasAnnotations(annotations, desired, max)) changed = true;
  return changed;
}

/**
 * The pod-template-hash of a template: FNV-1a (32 bits) of its canonical JSON and the collision
 * count, written in the alphabet of generated names, as upstream's ComputeHash does over Go's
 * printed form of the template (so the values differ from a kube-controller-manager's for the
 * same template; they are stable across svc restarts).
 */
export function podTemplateHash(template: PodTemplateSpec, collisionCount: number | undefined): string {
  let hash = 0x811c9dc5;
  const feed = (text: string) => {
    for (const byte of Buffer.from(text, 'utf8')) {
      hash ^= byte;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  };
  feed(canonicalJson(template));
  if (collisionCount !== undefined) {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32LE(collisionCount >>> 0);
    for (const byte of bytes) {
      hash ^= byte;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  }
  return safeEncode(String(hash));
}

// Upstream's rand.SafeEncodeString: each character mapped into an alphabet without vowels or look-alikes.
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
const safeEncode = (text: string): string => [...text].map((c) => ALPHANUMS[c.charCodeAt(0) % ALPHANUMS.length]).join('');

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
