import type { CriClient } from '../cri/index.js';

/** The runtime's name and version: nodeInfo.containerRuntimeVersion is `<name>://<version>`. */
export interface RuntimeVersion {
  readonly runtimeName: string;
  readonly runtimeVersion: string;
}

/** Whether the runtime can run pods; `message` says why not. */
export interface RuntimeReadiness {
  readonly ready: boolean;
  readonly message: string;
}

/**
 * What node status asks of the container runtime. An interface so that registration and
 * heartbeats run (and are tested) without one; `criRuntimeInfo` is the real one.
 */
export interface RuntimeInfo {
  version(): Promise<RuntimeVersion>;
  readiness(): Promise<RuntimeReadiness>;
}

/**
 * The runtime through the CRI: Version, and Status's RuntimeReady and NetworkReady conditions
 * (both must hold, as for the kubelet: a runtime without a pod network cannot start sandboxes).
 * A failed Status call is "not ready", with the error as the message.
 */
export function criRuntimeInfo(cri: CriClient): RuntimeInfo {
  return {
    async version() {
      const v = await cri.version();
      return { runtimeName: v.runtimeName, runtimeVersion: v.runtimeVersion };
    },
    async readiness() {
      let conditions;
      try {
        conditions = (await cri.status()).status?.conditions ?? [];
      } catch (error) {
        return { ready: false, message: `container runtime status check failed: ${(error as Error).message}` };
      }
      const failing = ['RuntimeReady', 'NetworkReady']
        .map((type) => ({ type, condition: conditions.find((c) => c.type === type) }))
        .filter(({ condition }) => condition?.status !== true);
      if (failing.length === 0) return { ready: true, message: '' };
      const why = failing.map(({ type, condition }) => `${type}=false reason:${condition?.reason ?? 'Missing'} message:${condition?.message ?? 'not reported'}`);
      return { ready: false, message: `container runtime not ready: ${why.join('; ')}` };
    },
  };
}
