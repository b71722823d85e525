import type { Probe } from './actions.js';

export type ProbeKind = 'startup' | 'liveness' | 'readiness';

/** A probe's timing with the API's defaults applied. */
export interface ProbeSettings {
  readonly initialDelayMs: number;
  readonly periodMs: number;
  readonly timeoutMs: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
  /** The probe's own grace period for the kill its failure causes (liveness and startup). */
  readonly terminationGracePeriodSeconds: number | undefined;
}

/**
 * Defaults as the API server's: periodSeconds 10, timeoutSeconds 1, successThreshold 1,
 * failureThreshold 3; an unset or 0 value takes the default (the API defaults 0 the same way).
 * successThreshold is 1 for liveness and startup whatever the pod says: validation requires it,
 * and the agent may run pods (static ones) that never passed validation.
 */
export function probeSettings(probe: Probe, kind: ProbeKind): ProbeSettings {
  const positive = (value: number | undefined, fallback: number) => (value && value > 0 ? value : fallback);
  return {
    initialDelayMs: (probe.initialDelaySeconds ?? 0) * 1000,
    periodMs: positive(probe.periodSeconds, 10) * 1000,
    timeoutMs: positive(probe.timeoutSeconds, 1) * 1000,
    successThreshold: kind === 'readiness' ? positive(probe.successThreshold, 1) : 1,
    failureThreshold: positive(probe.failureThreshold, 3),
    terminationGracePeriodSeconds: kind === 'readiness' ? undefined : probe.terminationGracePeriodSeconds,
  };
}

/** The probe of this kind the container declares, if any. */
export function containerProbe(container: { startupProbe?: Probe | undefined; livenessProbe?: Probe | undefined; readinessProbe?: Probe | undefined }, kind: ProbeKind): Probe | undefined {
  return kind === 'startup' ? container.startupProbe : kind === 'liveness' ? container.livenessProbe : container.readinessProbe;
}
