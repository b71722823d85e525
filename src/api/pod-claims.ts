import type { Pod } from './kinds/index.js';

/** One claim a pod's volume uses, and whether it is a generic ephemeral volume's (owned by the pod). */
export interface PodClaim {
  readonly volume: string;
  readonly claimName: string;
  readonly ephemeral: boolean;
}

/**
 * The PersistentVolumeClaims a pod's volumes use: `persistentVolumeClaim.claimName`, and for a
 * generic ephemeral volume the claim the ephemeral-volume loop makes, named `<pod>-<volume>`.
 */
export function podClaims(pod: Pod): PodClaim[] {
  const claims: PodClaim[] = [];
  for (const volume of pod.spec.volumes ?? []) {
    if (volume.persistentVolumeClaim) claims.push({ volume: volume.name, claimName: volume.persistentVolumeClaim.claimName, ephemeral: false });
    else if (volume.ephemeral) claims.push({ volume: volume.name, claimName: ephemeralClaimName(pod.metadata.name ?? '', volume.name), ephemeral: true });
  }
  return claims;
}

/** The claim of a pod's generic ephemeral volume. */
export function ephemeralClaimName(podName: string, volumeName: string): string {
  return `${podName}-${volumeName}`;
}
