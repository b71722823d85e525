/**
 * The feature gates svc-apiserver knows, with their defaults. Names and defaults follow the
 * Kubernetes gates of the same name so that a `--feature-gates` value copied from a
 * kube-apiserver command line means the same here.
 */
export const KNOWN_FEATURE_GATES = {
  APIResponseCompression: true,
  AllowUnsafeMalformedObjectDeletion: false,
  CBORServingAndStorage: false,
  WatchList: true,
  ListFromCacheSnapshot: true,
} as const satisfies Record<string, boolean>;

export type FeatureGateName = keyof typeof KNOWN_FEATURE_GATES;
export type FeatureGates = Readonly<Record<FeatureGateName, boolean>>;

const isKnown = (name: string): name is FeatureGateName => Object.hasOwn(KNOWN_FEATURE_GATES, name);

/** The first gate in `given` that svc does not know, as a validation message. */
export function unknownFeatureGate(given: Readonly<Record<string, boolean>>): string | undefined {
  const unknown = Object.keys(given).find((name) => !isKnown(name));
  return unknown === undefined ? undefined : `unrecognized feature gate: ${unknown} (known: ${Object.keys(KNOWN_FEATURE_GATES).join(', ')})`;
}

/** Every known gate, with the given values over the defaults. */
export function resolveFeatureGates(given: Readonly<Record<string, boolean>>): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...KNOWN_FEATURE_GATES };
  for (const [name, value] of Object.entries(given)) if (isKnown(name)) gates[name] = value;
  return gates;
}

/** `Name=default` pairs, for the flag's help text. */
export function describeFeatureGates(): string {
  return Object.entries(KNOWN_FEATURE_GATES)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
}
