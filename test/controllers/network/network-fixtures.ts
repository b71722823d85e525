// Objects of the network-loop suites: Services, pods with container ports, and pod status written
// as a node agent would (an IP, a phase, the Ready condition) where no node runs them.
import { isStatusError, rfc3339, type Pod, type Service, type ServicePort } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';

export function service(name: string, namespace: string, spec: Service['spec'], labels?: Record<string, string>): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, ...(labels ? { labels } : {}) }, spec };
}

export const httpPort = (targetPort: number | string = 'http', name = 'http', port = 80): ServicePort => ({ name, port, targetPort, protocol: 'TCP' });

export interface PodShape {
  readonly labels?: Record<string, string>;
  /** Container ports by name. */
  readonly ports?: Record<string, number>;
  readonly nodeName?: string;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly finalizers?: string[];
}

export function pod(name: string, namespace: string, shape: PodShape = {}): Pod {
  const ports = Object.entries(shape.ports ?? {}).map(([portName, containerPort]) => ({ name: portName, containerPort, protocol: 'TCP' as const }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: shape.labels ?? { app: 'web' }, ...(shape.finalizers ? { finalizers: shape.finalizers } : {}) },
    spec: {
      containers: [{ name: 'c', image: 'busybox', ...(ports.length > 0 ? { ports } : {}) }],
      ...(shape.nodeName ? { nodeName: shape.nodeName } : {}),
      ...(shape.hostname ? { hostname: shape.hostname } : {}),
      ...(shape.subdomain ? { subdomain: shape.subdomain } : {}),
    },
  };
}

/**
 * Writes the pod's status: Running with `ip` (a list of IPs for dual stack), Ready or not. From
 * `current` when the caller has the pod as stored (a create's answer: no read first), read again
 * after a 409.
 */
export async function setPodStatus(client: Client, namespace: string, name: string, ip: string | string[], ready: boolean, phase = 'Running', current?: Pod): Promise<Pod> {
  const ips = Array.isArray(ip) ? ip : [ip];
  let pod = current ?? (await client.get(builtin.pods, name, { namespace }));
  for (;;) {
    const status = { ...pod.status, phase, podIP: ips[0], podIPs: ips.map((one) => ({ ip: one })), conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: rfc3339() }] };
    try {
      return await client.updateStatus(builtin.pods, { ...pod, status } as Pod, { namespace });
    } catch (error) {
      if (!isStatusError(error, 'Conflict')) throw error;
    }
    pod = await client.get(builtin.pods, name, { namespace });
  }
}

/** Creates the pod and writes its status (on the created version). */
export async function runningPod(client: Client, namespace: string, name: string, ip: string | string[], ready: boolean, shape: PodShape = {}): Promise<Pod> {
  const created = await client.create(builtin.pods, pod(name, namespace, shape), { namespace });
  return setPodStatus(client, namespace, name, ip, ready, 'Running', created);
}
