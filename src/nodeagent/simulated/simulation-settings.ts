/**
 * How svc's simulated container runtime behaves: how long a pod takes to start and how often
 * things fail. Rates are probabilities (0 never, 1 always) drawn per call, so a test that wants a
 * behaviour for certain sets 0 or 1.
 */
import { badRequest } from '../../api/index.js';
import { parseIpv4Cidr } from '../cri/index.js';

export interface SimulationSettings {
  /** How long RunPodSandbox and StartContainer each take, ms (the pod's start delay is about twice this). Default 0. */
  readonly startDelayMs: number;
  /** The chance that RunPodSandbox fails (the agent retries the pod with back-off). Default 0. */
  readonly sandboxFailureRate: number;
  /** The chance that StartContainer fails: the container is left exited with code 128, `StartError` (then crash-loop back-off). Default 0. */
  readonly startFailureRate: number;
  /** The chance that one probe attempt fails (exec probes through ExecSync, network probes answered by the simulation). Default 0. */
  readonly probeFailureRate: number;
  /** The pod network addresses are given from until the node's podCIDR arrives (CRI UpdateRuntimeConfig). Default 10.88.0.0/16. */
  readonly podNetwork: string;
  /** Randomness of the rates and of nothing else; tests may pass a seeded one. Default Math.random. */
  readonly random: () => number;
}

export const simulationDefaults: SimulationSettings = Object.freeze({
  startDelayMs: 0,
  sandboxFailureRate: 0,
  startFailureRate: 0,
  probeFailureRate: 0,
  podNetwork: '10.88.0.0/16',
  random: Math.random,
});

const RATES = ['sandboxFailureRate', 'startFailureRate', 'probeFailureRate'] as const;

/** The settings with their defaults filled in; a rate outside [0, 1], a negative delay or a bad network is a 400. */
export function simulationSettings(given: Partial<SimulationSettings> = {}): SimulationSettings {
  const settings = { ...simulationDefaults, ...given };
  for (const rate of RATES) {
    const value = settings[rate];
    if (!Number.isFinite(value) || value < 0 || value > 1) throw badRequest(`${rate}: ${value} is not a probability between 0 and 1`);
  }
  if (!Number.isFinite(settings.startDelayMs) || settings.startDelayMs < 0) throw badRequest(`startDelayMs: ${settings.startDelayMs} is not a duration of 0 ms or more`);
  try {
    parseIpv4Cidr(settings.podNetwork);
  } catch (error) {
    throw badRequest(`podNetwork: ${(error as Error).message}`);
  }
  return settings;
}
