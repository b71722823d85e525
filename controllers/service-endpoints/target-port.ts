import type { Pod, ServicePort } from '../../src/api/index.js';

/**
 * The pod's port a Service port sends to (upstream's FindPort): a numeric `targetPort` as it is,
 * no `targetPort` as the Service's own `port`, and a named one as the container port of that
 * name and protocol — in the app containers, then in the restartable init containers (sidecars).
 * Undefined when the pod has no such named port: it is then no endpoint of that port.
 */
export function resolveTargetPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort;
  if (target === undefined || target === '' || target === 0) return servicePort.port;
  if (typeof target === 'number') return target;
  if (/^[0-9]+$/.test(target)) return Number(target);
  const protocol = servicePort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((container) => container.restartPolicy === 'Always');
  for (const container of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
  }
  return undefined;
}
