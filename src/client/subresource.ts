import type { KubeObject } from '../api/index.js';

/** `autoscaling/v1` Scale: the scale subresource of deployments, replica sets, stateful sets, replication controllers and custom types that declare one. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number | undefined };
  status?: { replicas: number; selector?: string | undefined };
}

/** The node a pod is bound to (`pods/binding`). */
/** A TokenRequest's spec (authentication.k8s.io/v1): `Client.createToken`. */
export interface TokenRequestSpec {
  /** Empty: the API server's own audiences. */
  readonly audiences: readonly string[];
  readonly expirationSeconds?: number | undefined;
  readonly boundObjectRef?: { readonly kind: string; readonly apiVersion: string; readonly name: string; readonly uid?: string | undefined } | undefined;
}

export interface BindOptions {
  readonly namespace?: string | undefined;
  /** The pod's UID: the binding fails (409) if the pod of that name is another one now. */
  readonly uid?: string | undefined;
  /** Annotations the binding adds to the pod. */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly dryRun?: boolean | undefined;
}

/** `policy/v1` Eviction: deletes the pod if its disruption budgets allow (429 `TooManyRequests` otherwise). */
export interface EvictOptions {
  readonly namespace?: string | undefined;
  readonly gracePeriodSeconds?: number | undefined;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
  readonly dryRun?: boolean | undefined;
}

/** PodLogOptions: what part of which container's log. */
export interface PodLogOptions {
  readonly namespace?: string | undefined;
  /** Required when the pod has more than one container. */
  readonly container?: string | undefined;
  /** Keep the stream open and send new lines as they are written. */
  readonly follow?: boolean | undefined;
  /** Only the last n lines. */
  readonly tailLines?: number | undefined;
  /** Only lines written in the last n seconds. */
  readonly sinceSeconds?: number | undefined;
  /** Prefix each line with its RFC 3339 time. */
  readonly timestamps?: boolean | undefined;
  /** The log of the container's previous instance (after a restart). */
  readonly previous?: boolean | undefined;
  /** Stop after this many bytes. */
  readonly limitBytes?: number | undefined;
}

export function bindingBody(name: string, namespace: string, node: string, options: BindOptions): object {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace, ...(options.uid ? { uid: options.uid } : {}), ...(options.annotations ? { annotations: options.annotations } : {}) },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

export function evictionBody(name: string, namespace: string, options: EvictOptions): object {
  const deleteOptions: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined) deleteOptions['gracePeriodSeconds'] = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) deleteOptions['preconditions'] = options.preconditions;
  if (options.dryRun) deleteOptions['dryRun'] = ['All'];
  return {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name, namespace },
    ...(Object.keys(deleteOptions).length > 0 ? { deleteOptions: { apiVersion: 'v1', kind: 'DeleteOptions', ...deleteOptions } } : {}),
  };
}

export function logQuery(options: PodLogOptions): Record<string, string | number | boolean | undefined> {
  return {
    container: options.container,
    follow: options.follow || undefined,
    tailLines: options.tailLines,
    sinceSeconds: options.sinceSeconds,
    timestamps: options.timestamps || undefined,
    previous: options.previous || undefined,
    limitBytes: options.limitBytes,
  };
}
