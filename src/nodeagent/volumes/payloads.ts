import type { ConfigMap, Pod, Secret } from '../../api/index.js';
import type { FileProjection } from './atomic-writer.js';
import { podFieldValue } from './field-ref.js';
import { containerNamed, containerResourceValue } from './resource-field-ref.js';
import type { DownwardAPIFile, KeyToPath } from './sources.js';

/** The mode of files whose source sets none: Kubernetes' 0644 for every API-data volume. */
export const DEFAULT_MODE = 0o644;

/**
 * The files of a ConfigMap (data and binaryData) or a Secret: every key as a file named for it, or
 * only the listed `items` at their paths. A listed key the object lacks is an error unless the
 * source is optional (then it is left out): `configmap references non-existent config key: k`.
 */
export function keyedPayload(
  kind: 'ConfigMap' | 'Secret',
  object: ConfigMap | Secret | undefined,
  items: readonly KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): Map<string, FileProjection> {
  const entries = object ? bytesOf(kind, object) : new Map<string, Buffer>();
  const payload = new Map<string, FileProjection>();
  if (!items || items.length === 0) {
    for (const [key, data] of entries) payload.set(key, { data, mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const data = entries.get(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new Error(kind === 'ConfigMap' ? `configmap references non-existent config key: ${item.key}` : `references non-existent secret key: ${item.key}`);
    }
    payload.set(item.path, { data, mode: item.mode ?? defaultMode });
  }
  return payload;
}

function bytesOf(kind: 'ConfigMap' | 'Secret', object: ConfigMap | Secret): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (kind === 'ConfigMap') {
    const configMap = object as ConfigMap;
    for (const [key, text] of Object.entries(configMap.data ?? {})) out.set(key, Buffer.from(text, 'utf8'));
    for (const [key, base64] of Object.entries(configMap.binaryData ?? {})) out.set(key, Buffer.from(base64, 'base64'));
  } else {
    for (const [key, base64] of Object.entries((object as Secret).data ?? {})) out.set(key, Buffer.from(base64, 'base64'));
  }
  return out;
}

/**
 * The files of a downwardAPI volume or projection: the metadata field paths (name, namespace, uid,
 * labels, annotations and one label or annotation) and a named container's resources.
 */
export function downwardAPIPayload(
  pod: Pod,
  items: readonly DownwardAPIFile[] | undefined,
  defaultMode: number,
  nodeAllocatable: Readonly<Record<string, string>>,
): Map<string, FileProjection> {
  const payload = new Map<string, FileProjection>();
  for (const item of items ?? []) {
    let value: string;
    if (item.fieldRef) {
      value = podFieldValue(pod, item.fieldRef.fieldPath);
    } else if (item.resourceFieldRef) {
      const name = item.resourceFieldRef.containerName;
      if (!name) throw new Error(`${item.path}: resourceFieldRef needs a containerName in a volume`);
      value = containerResourceValue(item.resourceFieldRef, containerNamed(pod, name), nodeAllocatable);
    } else {
      throw new Error(`${item.path}: needs a fieldRef or a resourceFieldRef`);
    }
    payload.set(item.path, { data: Buffer.from(value, 'utf8'), mode: item.mode ?? defaultMode });
  }
  return payload;
}
