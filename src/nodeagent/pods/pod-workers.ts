import { setMaxListeners } from 'node:events';
import { totalmem } from 'node:os';
import { EMPTY, filter, interval, map, merge, mergeMap, share, Subject, tap, type Observable, type SchedulerLike } from 'rxjs';
import { isStatusError, podQosClass, rfc3339, type Pod, type PodStatus } from '../../api/index.js';
import { builtin, type Client, type EventRecorder } from '../../client/index.js';
import { awaitChange, requeueAfter, workqueue, type Outcome, type WorkResult } from '../../../operators/index.js';
import type { CriClient } from '../cri/index.js';
import { isStaticPod, type PodUpdate, type SourcesReadiness } from '../sources/index.js';
import { CrashLoopBackoff, type CrashLoopBackoffOptions } from './crash-loop-backoff.js';
import type { ImageManager } from '../images/index.js';
import type { ProbeManager } from '../probes/index.js';
import { cachingObjectReader, podObjectReader } from '../volumes/index.js';
import { noApiObjects, podVolumesAccess, type PodVolumesAccess } from './pod-volumes-access.js';
import { podRuntimeChanged } from './pod-runtime-cache.js';
import { relist } from './relister.js';
import { StatusWriter } from './status-writer.js';
import { stopContainer, syncPod } from './sync-pod.js';
import { removeOrphan, terminatePod } from './terminate-pod.js';
import { podEvent, type PodEntry, type PodResources, type PodWorkerState, type WorkerContext } from './worker-context.js';

/** The pods the agent runs now, each with the latest status it computed (the contract with the agent's server). */
export interface AgentPodView {
  pods(): readonly Pod[];
}

export interface PodWorkersOptions {
  readonly cri: CriClient;
  /** The API server: statuses are written and deleted pods removed for good. Absent in standalone mode. */
  readonly client?: Client | undefined;
  /** The merged pod sources ({@link podSources}), shared. */
  readonly updates$: Observable<PodUpdate>;
  /** When every source has delivered its first set: only then is a pod the runtime holds and no source names an orphan to remove. Without it, orphans are left alone. */
  readonly readiness?: SourcesReadiness | undefined;
  readonly nodeName: string;
  /** The node's IPs (status.hostIP/hostIPs; pod IPs of host-network pods). */
  readonly hostIP: string | readonly string[];
  /** `--root-dir`. */
  readonly rootDir: string;
  /** Where sandboxes keep container logs (`/var/log/pods` in Kubernetes). */
  readonly podLogsDir: string;
  readonly clusterDNS?: readonly string[] | undefined;
  readonly clusterDomain?: string | undefined;
  /** `--resolv-conf`. Default `/etc/resolv.conf`. */
  readonly resolvConf?: string | undefined;
  /** `--sync-frequency`, ms: each pod is synced again this to 1.5 × this after its last sync. Default 60 000. */
  readonly syncFrequencyMs?: number | undefined;
  /** Runtime relist period, ms. Default 1000. */
  readonly relistPeriodMs?: number | undefined;
  /** The runtime's change signal, when it has one: the relist follows it (`relist`'s `changes$`) instead of listing every period. */
  readonly runtimeChanges$?: Observable<unknown> | undefined;
  /** Pods synced at once (never two syncs of one pod). Default 10. */
  readonly concurrency?: number | undefined;
  readonly cpuCfsQuota?: boolean | undefined;
  readonly cpuCfsQuotaPeriodUs?: number | undefined;
  /** The sandbox's cgroup parent, or a pod's (the QoS manager's `parentOf`). */
  readonly cgroupParent?: string | ((pod: Pod) => string) | undefined;
  /** The node's memory in bytes (OOM scores of Burstable containers). Default: this host's. */
  readonly nodeMemoryBytes?: number | undefined;
  /** Scheme of containerIDs in the status. Default `containerd`. */
  readonly runtimeName?: string | undefined;
  /** Crash-loop back-off: the kubelet's 10 s doubling to 5 min, reset after 10 min, unless told. */
  readonly backoff?: CrashLoopBackoffOptions | undefined;
  /** Node allocatable (resourceFieldRef and downward API defaults for containers without limits). */
  readonly nodeAllocatable?: Readonly<Record<string, string>> | undefined;
  /** Volumes and env; default: src/nodeagent/volumes on the root dir, reading objects through `client`. */
  readonly volumes?: PodVolumesAccess | undefined;
  /** How long the pods' ConfigMaps and Secrets may be cached, ms (`nodeObjectTtlMs` of the Node); default 0, no cache. */
  readonly objectCacheTtlMs?: (() => number) | undefined;
  /** Pulls by imagePullPolicy with back-off; without it: ImageStatus, then PullImage when absent. */
  readonly images?: ImageManager | undefined;
  /** Probes of running containers; without it every running container is started and ready. The caller closes it. */
  readonly probes?: ProbeManager | undefined;
  readonly events?: EventRecorder | undefined;
  /** The resource managers: each new pod is admitted by them (a refused one is Failed, never run), containers get their cpusets, stopped pods give their share back. */
  readonly resources?: PodResources | undefined;
  /** Told when an admission or a release changed what the resource managers hand out (the cpuset reconciler runs then). */
  readonly onResourcesChanged?: (() => void) | undefined;
  readonly scheduler?: SchedulerLike | undefined;
  /** Told about failed syncs (they are retried). Default: a line on stderr. */
  readonly onError?: ((uid: string, error: unknown) => void) | undefined;
}

export interface PodWorkersHandle {
  readonly view: AgentPodView;
  /** Every finished sync (for tests and metrics). */
  readonly results$: Observable<WorkResult<string>>;
  /** The worker state of a pod, or undefined when the agent does not know it. */
  state(uid: string): PodWorkerState | undefined;
  /**
   * Evicts a pod (node-pressure eviction): its containers are stopped with `gracePeriodSeconds`,
   * its status becomes phase Failed, reason Evicted, with `message` and a DisruptionTarget
   * condition, and its object stays. Resolves once that is done (at once for a pod not running).
   */
  evict(uid: string, gracePeriodSeconds: number, message: string): Promise<void>;
  /** Stops the workers and the relisting; containers keep running (a restarted agent adopts them). */
  stop(): void;
}

const logError = (uid: string, error: unknown): void => {
  process.stderr.write(`nodeagent: sync of pod ${uid} failed: ${error instanceof Error ? error.message : String(error)}\n`);
};

/**
 * Runs the pods of the sources through the runtime: one worker per pod UID on the work queue
 * operator (updates coalesced, never two syncs of one pod at once), fed by pod updates, by the
 * runtime relist (a change of a pod's containers) and by a resync of each pod `syncFrequencyMs`
 * to 1.5 × that after its last sync, spread as the kubelet spreads its pod workers' resyncs
 * (and a sweep for orphans, pods the runtime holds and no source names, every `syncFrequencyMs`).
 * A worker is syncing until its pod gets a deletionTimestamp or is REMOVEd, then terminating
 * (containers stopped with the grace period, sandboxes removed), then terminated: an API pod is
 * then deleted for good (grace 0, UID precondition) and forgotten on its REMOVE.
 */
export function startPodWorkers(options: PodWorkersOptions): PodWorkersHandle {
  const abort = new AbortController();
  // Every runtime call in flight listens on it: many pods at once are normal, not a leak.
  setMaxListeners(0, abort.signal);
  const hostIPs = typeof options.hostIP === 'string' ? [options.hostIP] : [...options.hostIP];
  const context: WorkerContext = {
    cri: options.cri,
    signal: abort.signal,
    sandbox: {
      podLogsDir: options.podLogsDir,
      clusterDNS: options.clusterDNS ?? [],
      clusterDomain: options.clusterDomain ?? '',
      resolvConf: options.resolvConf ?? '/etc/resolv.conf',
      cgroupParent: options.cgroupParent,
    },
    container: { cpuCfsQuota: options.cpuCfsQuota, cpuCfsQuotaPeriodUs: options.cpuCfsQuotaPeriodUs, nodeMemoryBytes: options.nodeMemoryBytes ?? totalmem() },
    hostIPs,
    runtimeName: options.runtimeName ?? 'containerd',
    backoff: new CrashLoopBackoff(options.backoff),
    exited: new Map(),
    statusWriter: options.client ? new StatusWriter(options.client) : undefined,
    volumes:
      options.volumes ??
      podVolumesAccess({
        rootDir: options.rootDir,
        nodeName: options.nodeName,
        hostIP: hostIPs[0] ?? '',
        objects: options.client ? cachingObjectReader(podObjectReader(options.client), options.objectCacheTtlMs ?? (() => 0)) : noApiObjects,
        nodeAllocatable: options.nodeAllocatable ?? {},
      }),
    images: options.images,
    probes: options.probes,
    events: options.events,
    resources: options.resources,
  };
  const entries = new Map<string, PodEntry>();
  const evictions = new Subject<string>();
  const onError = options.onError ?? logError;
  const lister = relist({ cri: options.cri, periodMs: options.relistPeriodMs, changes$: options.runtimeChanges$, scheduler: options.scheduler });
  const sourcesSeen = () => options.readiness?.allReady() ?? false;

  const fromUpdates = options.updates$.pipe(
    map((update) => {
      const uid = update.pod.metadata.uid ?? '';
      const entry = entries.get(uid);
      if (update.type === 'RECONCILE') {
        // The pod as the API server shows it now, as the kubelet's pod manager takes a reconciled
        // pod: only its status differs from the one held, and holding the older version beside
        // the source's newer one kept two decoded copies of every running pod (the first write's
        // echo is a RECONCILE of every pod).
        if (entry) entry.pod = update.pod;
        // The echo of the agent's own last status write needs no sync (the kubelet's
        // HandlePodReconcile syncs only when the status needs reconciling): one fewer sync per
        // status write, where each sync sets the pod's volumes up again and reads the runtime.
        if (entry && context.statusWriter?.wrote(uid, update.pod.status) && entry.state === 'syncing') return undefined;
        if (entry) entry.apiStatus = update.pod.status;
      } else if (entry) {
        entry.pod = update.pod;
        if (update.type === 'REMOVE') entry.removed = true;
      } else if (update.type !== 'REMOVE') {
        // A pod the API server shows Succeeded or Failed (an eviction before an agent restart) is never run again.
        const ended = update.pod.status?.phase === 'Succeeded' || update.pod.status?.phase === 'Failed' ? update.pod.status : undefined;
        const entry: PodEntry = { pod: update.pod, state: 'syncing', removed: false, status: ended, apiStatus: undefined, failures: 0 };
        entries.set(uid, entry);
        if (!ended && update.pod.metadata.deletionTimestamp === undefined) admit(entry);
      }
      return uid;
    }),
    filter((uid): uid is string => uid !== undefined),
  );
  /** The kubelet's admission of a pod it is to run: the resource managers decide, a refused pod ends Failed at once. */
  const admit = (entry: PodEntry): void => {
    if (!context.resources) return;
    let result: ReturnType<PodResources['admit']>;
    try {
      result = context.resources.admit(entry.pod);
    } catch (error) {
      // A manager that cannot even say (its checkpoint unwritable): the pod is refused, the stream of updates goes on.
      result = { admit: false, reason: 'UnexpectedAdmissionError', message: `Allocate failed due to ${error instanceof Error ? error.message : String(error)}, which is unexpected` };
    }
    if (result.admit) {
      if (result.sharedPoolChanged !== false) options.onResourcesChanged?.();
      return;
    }
    const reason = result.reason ?? 'UnexpectedAdmissionError';
    const message = result.message ?? '';
    entry.rejected = true;
    entry.status = { ...(entry.pod.status ?? {}), phase: 'Failed', reason, message: `Pod was rejected: ${message}`, qosClass: podQosClass(entry.pod.spec) };
    podEvent(context, entry.pod, 'Warning', reason, message);
  };
  const release = (uid: string): void => {
    if (!context.resources) return;
    context.resources.removePod(uid);
    options.onResourcesChanged?.();
  };
  const everyone = () => new Set([...entries.keys(), ...(lister.latest()?.keys() ?? [])]);
  const syncFrequencyMs = options.syncFrequencyMs ?? 60_000;
  // Each pod's periodic sync comes from its own last sync, at a random point of [period, 1.5 ×
  // period): 100 pods synced at one instant every minute grew the agent's heap by ~10 MB each time.
  const resync = (): Outcome => requeueAfter(syncFrequencyMs * (1 + 0.5 * Math.random()));
  const orphanSweep = interval(syncFrequencyMs, options.scheduler).pipe(mergeMap(() => [...(lister.latest()?.keys() ?? [])].filter((uid) => !entries.has(uid))));
  const onSourcesSeen = options.readiness ? options.readiness.ready$.pipe(filter(Boolean), mergeMap(() => everyone())) : EMPTY;
  const fromProbes = options.probes
    ? options.probes.results$.pipe(
        mergeMap(async (result) => {
          if (result.result === 'failure' && (result.kind === 'liveness' || result.kind === 'startup')) {
            const entry = entries.get(result.podUid);
            // A failed liveness or startup probe: the container is killed; the sync restarts it under the restart policy.
            const grace = entry ? (entry.pod.spec.terminationGracePeriodSeconds ?? 30) : 30;
            if (entry) podRuntimeChanged(entry);
            await stopContainer(context, result.containerId, grace).catch((error: unknown) => onError(result.podUid, error));
          }
          return result.podUid;
        }),
      )
    : EMPTY;

  const work = async (uid: string): Promise<Outcome<undefined>> => {
    const entry = entries.get(uid);
    if (!entry) {
      if (sourcesSeen()) await removeOrphan(context, uid);
      return awaitChange();
    }
    const pod = entry.pod;
    const wanted = !entry.removed && pod.metadata.deletionTimestamp === undefined && entry.eviction === undefined;
    if (wanted && entry.rejected) {
      if (context.statusWriter && entry.status) await context.statusWriter.write(pod, entry.status);
      return awaitChange();
    }
    if (wanted && entry.state === 'syncing') {
      const outcome = await syncPod(context, entry);
      return outcome.type === 'awaitChange' ? resync() : outcome;
    }
    if (entry.state !== 'terminated') {
      entry.state = 'terminating';
      const eviction = entry.eviction;
      const final = await terminatePod(context, pod, entry.status ?? pod.status, eviction?.gracePeriodSeconds);
      entry.status = eviction ? evictedStatus(final, eviction.message) : final;
      entry.state = 'terminated';
      release(uid);
      if (!entry.removed && context.statusWriter) await context.statusWriter.write(pod, entry.status);
      if (eviction) {
        podEvent(context, pod, 'Warning', 'Evicted', eviction.message);
        eviction.done();
      }
    }
    if (entry.removed) {
      entries.delete(uid);
      context.statusWriter?.forget(uid);
      return awaitChange();
    }
    // An evicted pod's object stays, Failed, until someone deletes it.
    if (entry.eviction && pod.metadata.deletionTimestamp === undefined) return awaitChange();
    if (options.client && !isStaticPod(pod)) await deleteForGood(options.client, pod);
    return awaitChange();
  };

  // A change the relist saw makes the pod's cached runtime read stale before its sync runs.
  const fromRelist = lister.changes$.pipe(
    tap((uid) => {
      const entry = entries.get(uid);
      if (entry) podRuntimeChanged(entry);
    }),
  );
  const results$ = merge(fromUpdates, fromRelist, orphanSweep, onSourcesSeen, fromProbes, evictions).pipe(
    workqueue<string>({
      work: (uid) =>
        work(uid).catch((error: unknown) => {
          if (!abort.signal.aborted) onError(uid, error);
          throw error;
        }),
      concurrency: options.concurrency ?? 10,
      backoff: { base: 1000, max: 60_000 },
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    }),
    share(),
  );
  const subscription = results$.subscribe({ error: (error: unknown) => onError('', error) });

  return {
    view: {
      pods: () =>
        [...entries.values()]
          .filter((entry) => !entry.removed)
          .map((entry) => (entry.status ? { ...entry.pod, status: entry.status } : entry.pod)),
    },
    results$,
    state: (uid) => entries.get(uid)?.state,
    evict: (uid, gracePeriodSeconds, message) =>
      new Promise<void>((resolve) => {
        const entry = entries.get(uid);
        if (!entry || entry.state !== 'syncing' || entry.eviction) return resolve();
        entry.eviction = { gracePeriodSeconds, message, done: resolve };
        evictions.next(uid);
      }),
    stop: () => {
      subscription.unsubscribe();
      abort.abort();
    },
  };
}

/** A stopped pod's final status after an eviction (upstream's fields and DisruptionTarget condition). */
function evictedStatus(status: PodStatus, message: string): PodStatus {
  const now = rfc3339(Date.now());
  const conditions = (status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
  conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message, lastTransitionTime: now });
  return { ...status, phase: 'Failed', reason: 'Evicted', message, conditions };
}

/** The last step of a graceful deletion: the containers are gone, so the object may go now. */
async function deleteForGood(client: Client, pod: Pod): Promise<void> {
  try {
    await client.delete(builtin.pods, pod.metadata.name ?? '', {
      namespace: pod.metadata.namespace ?? 'default',
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid ?? '' },
    });
  } catch (error) {
    // Gone already, or replaced by a new pod of that name (the precondition): nothing of ours to delete.
    if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
  }
}
