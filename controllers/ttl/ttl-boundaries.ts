/**
 * The TTL a node agent may cache the objects its pods use (Secrets, ConfigMaps) for, by cluster
 * size, as upstream's ttl controller: the bigger the cluster, the longer, so that agents do not
 * swamp the API server with reads. Neighbouring steps overlap, so a cluster hovering at a
 * boundary does not flip between two TTLs: a step is left upwards above its max and downwards
 * below its min.
 */
export const TTL_BOUNDARIES: readonly { readonly sizeMin: number; readonly sizeMax: number; readonly ttlSeconds: number }[] = [
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: Number.MAX_SAFE_INTEGER, ttlSeconds: 300 },
];

/** The step a cluster of `count` nodes is on, coming from `step`. */
export function ttlStep(count: number, step: number): number {
  let next = step;
  while (next < TTL_BOUNDARIES.length - 1 && count > TTL_BOUNDARIES[next]!.sizeMax) next++;
  while (next > 0 && count < TTL_BOUNDARIES[next]!.sizeMin) next--;
  return next;
}
