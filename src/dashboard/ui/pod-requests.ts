import { milliValue } from '../../browser-safe/index.js';

interface Container {
  readonly restartPolicy?: string;
  readonly resources?: { readonly requests?: Record<string, string | number> };
}

export interface PodRequestsSpec {
  readonly containers?: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly overhead?: Record<string, string | number>;
}

/**
 * What a pod requests of one resource, in milli-units, as the scheduler and `kubectl describe
 * node` count it: its containers' sum plus its sidecars (init containers that keep running,
 * `restartPolicy: Always`), or an ordinary init container with the sidecars started before it
 * if that is more; then the pod's overhead. Requests alone: the API's defaulting has already
 * copied a limit into a request that was not given.
 */
export function podRequest(spec: PodRequestsSpec | undefined, resource: string): number {
  const request = (c: Container) => milliValue(c.resources?.requests?.[resource]);
  let running = (spec?.containers ?? []).reduce((sum, c) => sum + request(c), 0);
  let sidecars = 0;
  let initPeak = 0;
  for (const init of spec?.initContainers ?? []) {
    if (init.restartPolicy === 'Always') {
      sidecars += request(init);
      initPeak = Math.max(initPeak, sidecars);
    } else initPeak = Math.max(initPeak, sidecars + request(init));
  }
  running += sidecars;
  return Math.max(running, initPeak) + milliValue(spec?.overhead?.[resource]);
}
