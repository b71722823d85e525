import type { Pod } from '../../api/index.js';

/** What only the node agent knows about a pod, for the env-only field paths. */
export interface PodRuntimeFields {
  readonly nodeName: string;
  readonly hostIP: string;
  readonly podIP: string | undefined;
  readonly podIPs: readonly string[];
}

const SUBSCRIPTED = /^metadata\.(labels|annotations)\['(.*)'\]$/s;

/**
 * The value of a downward-API `fieldRef` path for `pod`. The metadata paths work everywhere; the
 * spec and status paths only in env (`runtime` given), as in Kubernetes, whose downwardAPI volumes
 * accept the metadata paths alone. A path it does not know is an error: `unsupported fieldPath: x`.
 */
export function podFieldValue(pod: Pod, fieldPath: string, runtime?: PodRuntimeFields): string {
  const meta = pod.metadata;
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return formatMap(meta.labels ?? {});
    case 'metadata.annotations':
      return formatMap(meta.annotations ?? {});
  }
  const subscripted = SUBSCRIPTED.exec(fieldPath);
  if (subscripted) {
    const map = (subscripted[1] === 'labels' ? meta.labels : meta.annotations) ?? {};
    return map[subscripted[2]!] ?? '';
  }
  if (runtime) {
    switch (fieldPath) {
      case 'spec.nodeName':
        return pod.spec.nodeName || runtime.nodeName;
      case 'spec.serviceAccountName':
        return pod.spec.serviceAccountName ?? '';
      case 'status.hostIP':
        return runtime.hostIP;
      case 'status.hostIPs': {
        const listed = (pod.status?.hostIPs ?? []).map((entry) => entry.ip);
        return (listed.length > 0 ? listed : [runtime.hostIP]).join(',');
      }
      case 'status.podIP':
        return runtime.podIP ?? '';
      case 'status.podIPs':
        return runtime.podIPs.join(',');
    }
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

/** Labels and annotations as one `key="value"` line each, keys sorted, values quoted as Go's %q. */
export function formatMap(map: Readonly<Record<string, string>>): string {
  return Object.keys(map)
    .sort()
    .map((key) => `${key}=${goQuote(map[key]!)}`)
    .join('\n');
}

const GO_ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

// Go's strconv.Quote for the text labels and annotations hold: printable runes stay as they are.
function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (GO_ESCAPES[ch] !== undefined) out += GO_ESCAPES[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
