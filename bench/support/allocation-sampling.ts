// Where this process allocates, sampled (V8's sampling heap profiler, in process): bytes by the
// allocating function, counting what the collectors already freed too, so it is the allocation
// volume behind the scavenges, not what is live at the end. About one sample every 16 KiB.
import { Session, type HeapProfiler } from 'node:inspector';

export interface AllocationSites {
  /** Bytes sampled in all (an estimate of what was allocated). */
  readonly bytes: number;
  /** `function (file:line)` → bytes, largest first. */
  readonly sites: readonly (readonly [site: string, bytes: number])[];
}

const where = (frame: HeapProfiler.SamplingHeapProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'} (${frame.url.replace(/^.*?\/(src|bench|node_modules)\//, '$1/').replace(/^file:\/\//, '')}:${frame.lineNumber + 1})`;

/** Starts sampling; the returned function stops and hands over the sites by self bytes. */
export async function startAllocationSampling(): Promise<() => Promise<AllocationSites>> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 16 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async () => {
    const { profile } = await post<HeapProfiler.StopSamplingReturnType>('HeapProfiler.stopSampling');
    session.disconnect();
    const bySite = new Map<string, number>();
    let bytes = 0;
    const walk = (node: HeapProfiler.SamplingHeapProfileNode) => {
      if (node.selfSize > 0) {
        const site = where(node.callFrame);
        bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
        bytes += node.selfSize;
      }
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    return { bytes, sites: [...bySite].sort((a, b) => b[1] - a[1]) };
  };
}
