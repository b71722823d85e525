import type { Container, Pod } from '../../api/index.js';
import type { ProviderHints, TopologyHint } from './topology-hints.js';

/** A resource manager as the topology manager drives it (upstream's HintProvider plus Allocate). */
export interface HintProvider {
  /** Hints for one container (scope `container`). */
  hints(pod: Pod, container: Container): ProviderHints;
  /** Hints for the whole pod (scope `pod`). */
  podHints(pod: Pod): ProviderHints;
  /** Assigns the container its resources within `hint`; throws (an AdmissionError or any error) when it cannot. */
  allocate(pod: Pod, container: Container, hint: TopologyHint): void;
  /** Gives back everything the pod holds. */
  removePod(uid: string): void;
}

/** Init containers, then the app containers: the order admission allocates in. */
export const containersOf = (pod: Pod): readonly Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
