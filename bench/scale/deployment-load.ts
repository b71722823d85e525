// The load the scale benches make (issue #26): a namespace of its own, and `total` pods in it as
// Deployments of `replicas` each, named `<prefix>-<i>`, either created at their full size at once
// or created empty and scaled up in steps at a create rate — the density SLO's "create rate"
// (500 pods/s).
import type { Deployment } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';

export interface DeploymentLoad {
  readonly namespace: string;
  readonly prefix: string;
  /** Pods asked for in all. */
  readonly total: number;
  /** Replicas of each full Deployment; the last one holds what is left. */
  readonly replicas: number;
  /** The pods' `spec.schedulerName` (a name no scheduler serves keeps them Pending). */
  readonly schedulerName?: string;
}

/**
 * Creates the load's namespace and waits for its default ServiceAccount, which the ServiceAccount
 * admission plugin needs before it admits a pod there.
 */
export async function createLoadNamespace(client: Client, namespace: string): Promise<void> {
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (;;) {
    try {
      await client.get(builtin.serviceAccounts, 'default', { namespace });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

export const deploymentCount = (load: DeploymentLoad): number => Math.ceil(load.total / load.replicas);
const sizeOf = (load: DeploymentLoad, i: number): number => Math.min(load.replicas, load.total - i * load.replicas);
const nameOf = (load: DeploymentLoad, i: number): string => `${load.prefix}-${i}`;

/** Creates the Deployments one after another, at their full size (`paced` false) or with 0 replicas. */
export async function createDeployments(client: Client, load: DeploymentLoad, paced: boolean): Promise<void> {
  for (let i = 0; i < deploymentCount(load); i++) {
    const name = nameOf(load, i);
    await client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: load.namespace },
      spec: {
        replicas: paced ? 0 : sizeOf(load, i),
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            ...(load.schedulerName !== undefined ? { schedulerName: load.schedulerName } : {}),
            containers: [{ name: 'app', image: 'registry.example/pause:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
          },
        },
      },
    } as Deployment);
  }
}

/**
 * Scale steps: each second the Deployments, in order, are asked for `rate` × the seconds elapsed
 * pods in all, until `total` (or `stopped()`), through `scaleTo` (each step's PATCHes at once).
 * Resolves when every pod has been asked for; rejects with the first step that failed.
 */
export async function paceScaleSteps(
  load: DeploymentLoad,
  rate: number,
  scaleTo: (name: string, replicas: number) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const count = deploymentCount(load);
  const asked = new Array<number>(count).fill(0);
  const began = performance.now();
  for (let total = 0; total < load.total && !stopped(); ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const want = Math.min(load.total, Math.round((rate * (performance.now() - began)) / 1000));
    const patches: Promise<void>[] = [];
    for (let i = 0, left = want; i < count; i++) {
      const replicas = Math.min(sizeOf(load, i), Math.max(0, left));
      left -= replicas;
      if (replicas === asked[i]) continue;
      asked[i] = replicas;
      patches.push(scaleTo(nameOf(load, i), replicas));
    }
    await Promise.all(patches);
    total = want;
  }
}
