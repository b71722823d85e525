import { asyncScheduler, exhaustMap, Observable, Subject, timer, type SchedulerLike, type Subscription } from 'rxjs';
import type { CriClient } from '../cri/index.js';
import type { EventRecorder, InvolvedObject } from '../../client/index.js';
import type { Probe } from './actions.js';
import { containerProbe, probeSettings, type ProbeKind, type ProbeSettings } from './probe-settings.js';
import { ProbeThreshold } from './probe-threshold.js';
import { runProbe, type RunProbeOptions } from './run-probe.js';
import type { ActionOutcome, ProbeTarget } from './target.js';

/** A change of a probe's result, once its threshold was reached. */
export interface ProbeResult {
  readonly podUid: string;
  readonly containerName: string;
  readonly containerId: string;
  readonly kind: ProbeKind;
  readonly result: 'success' | 'failure';
  /** The last attempt's message (command output, HTTP status, connection error). */
  readonly message?: string;
  /** A failing liveness or startup probe's own grace period for the kill, when it sets one. */
  readonly terminationGracePeriodSeconds?: number;
}

/** One run of a probe, before thresholds: for metrics, logs and tests. */
export interface ProbeAttempt {
  readonly podUid: string;
  readonly containerName: string;
  readonly containerId: string;
  readonly kind: ProbeKind;
  readonly result: 'success' | 'failure';
  readonly message: string;
  /** The probe could not run (malformed, no pod IP, runtime error) or ran out of time. */
  readonly errored: boolean;
}

export interface ProbeManagerOptions {
  readonly cri: CriClient;
  /** Where `Unhealthy` events go; the agent's EventRecorder. */
  readonly events?: Pick<EventRecorder, 'record'> | undefined;
  /** Clock and timers of every probe (periods, delays, timeouts); tests pass a virtual one. */
  readonly scheduler?: SchedulerLike | undefined;
  /**
   * Runs one attempt of a probe's action; default `runProbe` (exec through the CRI, the network
   * actions against the pod's address). A hollow node's simulated runtime answers the network
   * actions itself, since no socket listens at a simulated pod's address.
   */
  readonly runAction?: ((probe: Probe, target: ProbeTarget, options: RunProbeOptions) => Promise<ActionOutcome>) | undefined;
}

type Outcome = 'success' | 'failure' | undefined;

/** One container instance's probes. A new container ID is a new instance with fresh state. */
class ContainerProbes {
  /** Startup is unknown until it passes; liveness starts passing; readiness starts failing. */
  readonly state: Record<ProbeKind, Outcome> = { startup: undefined, liveness: 'success', readiness: 'failure' };
  readonly loops = new Map<ProbeKind, Subscription>();

  constructor(
    readonly target: ProbeTarget,
    readonly startedAtMs: number,
  ) {}

  get containerId(): string {
    return this.target.containerId;
  }

  get started(): boolean {
    return !this.target.container.startupProbe || this.state.startup === 'success';
  }

  get ready(): boolean {
    return this.started && (!this.target.container.readinessProbe || this.state.readiness === 'success');
  }

  stopLoop(kind: ProbeKind): void {
    this.loops.get(kind)?.unsubscribe();
    this.loops.delete(kind);
  }

  stop(): void {
    for (const loop of this.loops.values()) loop.unsubscribe();
    this.loops.clear();
  }
}

/**
 * A container that declares no probe: started and ready while it runs, and nothing to keep but its
 * ID. Its target's pod is the version the container started in: held for as long as the container
 * runs, it kept an old copy of every running pod alive beside the agent's current one.
 */
class Unprobed {
  readonly started = true;
  readonly ready = true;

  constructor(readonly containerId: string) {}

  stop(): void {}
}

const TITLE: Record<ProbeKind, string> = { startup: 'Startup', liveness: 'Liveness', readiness: 'Readiness' };

/**
 * Runs the startup, liveness and readiness probes of the agent's containers, the kubelet's way:
 * startup first, and liveness and readiness only once it passed; each probe on its own timer
 * (initialDelaySeconds from the container's start, then every periodSeconds, each attempt cut off
 * at timeoutSeconds, a slow attempt never overlapped by the next); results counted against the
 * success and failure thresholds, and only changes published on `results$`. A failed liveness or
 * startup result stops that container's probing until the worker restarts it under a new ID.
 * Every failed attempt is a Warning event `Unhealthy` on the pod.
 */
export class ProbeManager {
  readonly #options: ProbeManagerOptions;
  readonly #scheduler: SchedulerLike;
  readonly #pods = new Map<string, Map<string, ContainerProbes | Unprobed>>();
  readonly #results = new Subject<ProbeResult>();
  readonly #attempts = new Subject<ProbeAttempt>();
  #inFlight = 0;
  #closed = false;

  /** Result changes only: failing liveness or startup ⇒ restart the container; readiness ⇒ recompute status. */
  readonly results$: Observable<ProbeResult> = this.#results.asObservable();
  /** Every attempt with its raw result. */
  readonly attempts$: Observable<ProbeAttempt> = this.#attempts.asObservable();

  constructor(options: ProbeManagerOptions) {
    this.#options = options;
    this.#scheduler = options.scheduler ?? asyncScheduler;
  }

  /** Starts the container's probes; a second call for the same containerId does nothing, a new ID starts afresh. */
  start(target: ProbeTarget): void {
    if (this.#closed) return;
    const podUid = target.pod.metadata.uid ?? '';
    let containers = this.#pods.get(podUid);
    if (!containers) this.#pods.set(podUid, (containers = new Map()));
    const existing = containers.get(target.container.name);
    if (existing?.containerId === target.containerId) return;
    existing?.stop();
    if (!target.container.startupProbe && !target.container.livenessProbe && !target.container.readinessProbe) {
      containers.set(target.container.name, new Unprobed(target.containerId));
      return;
    }
    const probes = new ContainerProbes(target, target.startedAtMs ?? this.#scheduler.now());
    containers.set(target.container.name, probes);
    if (target.container.startupProbe) this.#loop(probes, 'startup', target.container.startupProbe);
    else this.#startMain(probes);
  }

  /** Stops the probes of a pod, or of one container of it, and forgets their results. */
  stop(podUid: string, containerName?: string): void {
    const containers = this.#pods.get(podUid);
    if (!containers) return;
    for (const [name, probes] of containers) {
      if (containerName !== undefined && name !== containerName) continue;
      probes.stop();
      containers.delete(name);
    }
    if (containers.size === 0) this.#pods.delete(podUid);
  }

  /** Readiness now: false before the container's probes were started or while its startup probe has not passed; without a readiness probe, true once started. */
  ready(podUid: string, containerName: string): boolean {
    return this.#pods.get(podUid)?.get(containerName)?.ready ?? false;
  }

  /** The startup probe passed (true without one, once the container's probes were started). */
  started(podUid: string, containerName: string): boolean {
    return this.#pods.get(podUid)?.get(containerName)?.started ?? false;
  }

  /** Attempts running now (diagnostics; tests wait on it to know real I/O has settled). */
  inFlight(): number {
    return this.#inFlight;
  }

  /** Stops every probe and completes the streams; later `start()` calls do nothing. */
  close(): void {
    this.#closed = true;
    for (const containers of this.#pods.values()) for (const probes of containers.values()) probes.stop();
    this.#pods.clear();
    this.#results.complete();
    this.#attempts.complete();
  }

  #startMain(probes: ContainerProbes): void {
    for (const kind of ['liveness', 'readiness'] as const) {
      const probe = containerProbe(probes.target.container, kind);
      if (probe) this.#loop(probes, kind, probe);
    }
  }

  #loop(probes: ContainerProbes, kind: ProbeKind, probe: Probe): void {
    const settings = probeSettings(probe, kind);
    const threshold = new ProbeThreshold(settings.successThreshold, settings.failureThreshold);
    // initialDelaySeconds counts from the container's start, also for probes that waited for startup.
    const delay = Math.max(0, probes.startedAtMs + settings.initialDelayMs - this.#scheduler.now());
    const loop = timer(delay, settings.periodMs, this.#scheduler)
      .pipe(exhaustMap(() => this.#attempt(probes.target, kind, probe, settings)))
      .subscribe((attempt) => this.#observe(probes, attempt, threshold, settings));
    probes.loops.set(kind, loop);
  }

  /** One run of the probe, cut off at its timeout on the manager's clock; never errors. */
  #attempt(target: ProbeTarget, kind: ProbeKind, probe: Probe, settings: ProbeSettings): Observable<ProbeAttempt> {
    const base = { podUid: target.pod.metadata.uid ?? '', containerName: target.container.name, containerId: target.containerId, kind };
    return new Observable<ProbeAttempt>((subscriber) => {
      const abort = new AbortController();
      this.#inFlight++;
      const finish = (result: 'success' | 'failure', message: string, errored: boolean) => {
        if (subscriber.closed) return;
        subscriber.next({ ...base, result, message, errored });
        subscriber.complete();
      };
      const timeout = this.#scheduler.schedule(() => finish('failure', `probe timed out after ${settings.timeoutMs / 1000}s`, true), settings.timeoutMs);
      (this.#options.runAction ?? runProbe)(probe, target, { cri: this.#options.cri, timeoutSeconds: settings.timeoutMs / 1000, signal: abort.signal }).then(
        (outcome) => finish(outcome.result, outcome.message, false),
        (error: unknown) => finish('failure', error instanceof Error ? error.message : String(error), true),
      );
      return () => {
        this.#inFlight--;
        timeout.unsubscribe();
        abort.abort();
      };
    });
  }

  #observe(probes: ContainerProbes, attempt: ProbeAttempt, threshold: ProbeThreshold, settings: ProbeSettings): void {
    const { kind } = attempt;
    this.#attempts.next(attempt);
    if (attempt.result === 'failure') this.#unhealthy(probes.target, attempt);
    const reached = threshold.observe(attempt.result);
    if (reached === undefined || reached === probes.state[kind]) return;
    probes.state[kind] = reached;
    this.#results.next({
      podUid: attempt.podUid,
      containerName: attempt.containerName,
      containerId: attempt.containerId,
      kind,
      result: reached,
      ...(attempt.message ? { message: attempt.message } : {}),
      ...(reached === 'failure' && settings.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: settings.terminationGracePeriodSeconds } : {}),
    });
    if (kind === 'startup') {
      probes.stopLoop('startup');
      if (reached === 'success') this.#startMain(probes);
    } else if (kind === 'liveness' && reached === 'failure') {
      // On hold until the worker restarts the container under a new ID: probing a container
      // being killed only adds noise.
      probes.stopLoop('liveness');
    }
  }

  #unhealthy(target: ProbeTarget, attempt: ProbeAttempt): void {
    const { metadata } = target.pod;
    const object: InvolvedObject & { fieldPath: string } = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: metadata.name ?? '',
      namespace: metadata.namespace ?? 'default',
      uid: metadata.uid,
      fieldPath: `spec.containers{${target.container.name}}`,
    };
    const verb = attempt.errored ? 'errored' : 'failed';
    this.#options.events?.record(object, 'Warning', 'Unhealthy', `${TITLE[attempt.kind]} probe ${verb}: ${attempt.message}`);
  }
}
