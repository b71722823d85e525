import { createHash } from 'node:crypto';
import { canonicalJson, fieldInvalid, fieldNotSupported, fieldRequired, invalid, podSchema, validateName, withoutNulls, type FieldCause, type Pod, type StatusError } from '../../api/index.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from './pod-update.js';

// Object keys sorted at every depth: two documents that differ only in formatting, key order or
// YAML comments hash the same, so reformatting a manifest does not restart its pod.
export { canonicalJson };

/** Where a static pod document came from: its source and origin (file path or URL) feed its UID. */
export interface StaticPodOrigin {
  readonly source: 'file' | 'http';
  /** The file path or the URL. */
  readonly origin: string;
  readonly nodeName: string;
}

export type StaticPodResult = { readonly pod: Pod } | { readonly error: StatusError };

/**
 * The hash of one static pod document: 32 hex digits of SHA-256 over the origin, the node and the
 * canonical document. Deterministic across restarts of the agent, so an unchanged manifest keeps
 * its UID (its containers are adopted, not restarted) and any change gives a new one.
 */
export function staticPodHash(document: unknown, from: StaticPodOrigin): string {
  return createHash('sha256').update(`${from.source}\n${from.origin}\n${from.nodeName}\n`).update(canonicalJson(document)).digest('hex').slice(0, 32);
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/**
 * Gives one manifest document the kubelet's static-pod treatment, or says why it cannot run:
 * kind Pod (apiVersion v1), valid as a pod, a name. The pod is renamed `<name>-<nodeName>`, put in
 * `default` when it has no namespace, bound to the node (`spec.nodeName`), given a UID (the
 * document's own `metadata.uid` if it has one, else its hash) and the annotations
 * `svc.io/config.source` and `svc.io/config.hash` (always the content hash: a changed manifest with
 * a fixed UID still has a new hash, which is how its mirror is known to be stale).
 */
export function toStaticPod(document: unknown, from: StaticPodOrigin): StaticPodResult {
  const raw = asRecord(document);
  const rawName = typeof asRecord(raw?.['metadata'])?.['name'] === 'string' ? (asRecord(raw?.['metadata'])!['name'] as string) : '';
  const fail = (causes: FieldCause[]): StaticPodResult => ({ error: invalid('Pod', rawName, causes) });
  if (raw === undefined) return fail([fieldInvalid('', document, 'a manifest document must be an object')]);
  if (raw['kind'] !== 'Pod') return fail([fieldNotSupported('kind', raw['kind'], ['Pod'])]);
  if (raw['apiVersion'] !== undefined && raw['apiVersion'] !== 'v1') return fail([fieldNotSupported('apiVersion', raw['apiVersion'], ['v1'])]);
  const parsed = podSchema.safeParse(withoutNulls(raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail([fieldInvalid(issue.path.map(String).join('.'), undefined, issue.message)]);
  }
  const pod = parsed.data;
  if (!rawName) return fail([fieldRequired('metadata.name', 'a static pod needs a name')]);
  const name = `${rawName}-${from.nodeName}`;
  const namespace = pod.metadata.namespace || 'default';
  const causes = [
    ...validateName(name, 'subdomain').map((problem) => fieldInvalid('metadata.name', name, problem)),
    ...validateName(namespace, 'label').map((problem) => fieldInvalid('metadata.namespace', namespace, problem)),
  ];
  if (pod.spec.nodeName && pod.spec.nodeName !== from.nodeName) causes.push(fieldInvalid('spec.nodeName', pod.spec.nodeName, `a static pod runs on its own node, ${from.nodeName}`));
  if (causes.length > 0) return fail(causes);
  const hash = staticPodHash(raw, from);
  return {
    pod: {
      ...pod,
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...pod.metadata,
        name,
        namespace,
        uid: pod.metadata.uid || hash,
        annotations: { ...pod.metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: from.source, [CONFIG_HASH_ANNOTATION]: hash },
      },
      spec: { ...pod.spec, nodeName: from.nodeName },
    },
  };
}
