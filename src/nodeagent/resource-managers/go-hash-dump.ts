// The checksum the kubelet writes into its checkpoint files: FNV-1a (32 bit) of the checkpoint
// struct as k8s.io/utils/dump.ForHash renders it (go-spew, "%#v", keys sorted, no pointer
// addresses): `(*pkg.Type){Field:(type)value ...}`, a map as `map[k:v ...]` whose keys and values
// carry no type. A value is described here with its Go type so the rendering can be made.

export type GoValue =
  | { readonly kind: 'string'; readonly type: string; readonly value: string }
  | { readonly kind: 'uint' | 'int'; readonly type: string; readonly value: number }
  | { readonly kind: 'struct'; readonly type: string; readonly fields: readonly (readonly [string, GoValue])[] }
  | { readonly kind: 'ptr'; readonly to: GoValue & { kind: 'struct' } }
  | { readonly kind: 'map'; readonly type: string; readonly entries: readonly (readonly [GoValue, GoValue])[] | undefined }
  | { readonly kind: 'slice'; readonly type: string; readonly items: readonly GoValue[] | undefined };

export const goString = (value: string, type = 'string'): GoValue => ({ kind: 'string', type, value });
export const goUint = (value: number, type = 'uint64'): GoValue => ({ kind: 'uint', type, value });
export const goInt = (value: number, type = 'int'): GoValue => ({ kind: 'int', type, value });

const keyText = (value: GoValue): string => (value.kind === 'string' ? value.value : value.kind === 'int' || value.kind === 'uint' ? String(value.value).padStart(20, '0') : render(value, false));

function render(value: GoValue, withType: boolean): string {
  const prefix = (type: string) => (withType ? `(${type})` : '');
  switch (value.kind) {
    case 'string':
      return prefix(value.type) + value.value;
    case 'int':
    case 'uint':
      return prefix(value.type) + String(value.value);
    case 'ptr':
      return `(*${value.to.type})` + render(value.to, false);
    case 'struct':
      return prefix(value.type) + `{${value.fields.map(([name, field]) => `${name}:${render(field, true)}`).join(' ')}}`;
    case 'map': {
      if (value.entries === undefined) return prefix(value.type) + '<nil>';
      // spew sorts keys by their natural order: strings lexically, numbers numerically.
      const entries = [...value.entries].sort((a, b) => (keyText(a[0]) < keyText(b[0]) ? -1 : keyText(a[0]) > keyText(b[0]) ? 1 : 0));
      return prefix(value.type) + `map[${entries.map(([k, v]) => `${render(k, false)}:${render(v, false)}`).join(' ')}]`;
    }
    case 'slice':
      if (value.items === undefined) return prefix(value.type) + '<nil>';
      return prefix(value.type) + `[${value.items.map((item) => render(item, false)).join(' ')}]`;
  }
}

/** dump.ForHash's text of a value. */
export const dumpForHash = (value: GoValue): string => render(value, true);

/** FNV-1a, 32 bit, of a string's UTF-8 bytes. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The checkpoint checksum of a value (its Checksum field set to 0 by the caller). */
export const checkpointChecksum = (value: GoValue): number => fnv32a(dumpForHash(value));
