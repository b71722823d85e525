import { SERVICE_NAME_LABEL, type Endpoints, type ResourceRegistry, type Service } from '../../api/index.js';
import type { CachedObjects } from '../admission/index.js';
import type { AvailableReason } from './conditions.js';

/** The Service an APIService names: `spec.service`. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

/** Where to connect for a Service, or why there is nowhere. */
export type Resolution =
  | { readonly ok: true; readonly host: string; readonly port: number }
  | { readonly ok: false; readonly reason: AvailableReason; readonly message: string };

interface Slice {
  readonly metadata: { readonly labels?: Readonly<Record<string, string>> };
  readonly endpoints?: readonly { readonly addresses?: readonly string[]; readonly conditions?: { readonly ready?: boolean } }[];
  readonly ports?: readonly { readonly name?: string; readonly port?: number }[];
}


const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * Resolves a Service to one of its endpoints, as kube-aggregator does without a cluster network:
 * the Service port `ref.port` gives a port name; the Service's Endpoints object (else its
 * EndpointSlices, labelled `kubernetes.io/service-name`) gives ready addresses with a port of
 * that name; one of them is picked at random per call. An ExternalName Service resolves to its
 * external name. The cluster IP is never used: svc has no service proxy that would route it.
 */
export function resolveServiceEndpoint(objects: CachedObjects, registry: ResourceRegistry, ref: ServiceRef): Resolution {
  const where = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
  const servicesType = registry.lookup('', 'v1', 'services');
  const service = servicesType && (objects.get(servicesType, ref.namespace, ref.name) as Service | undefined);
  if (!service) return { ok: false, reason: 'ServiceNotFound', message: `${where} is not present` };
  if (service.spec?.type === 'ExternalName' && service.spec.externalName) return { ok: true, host: service.spec.externalName, port: ref.port };
  const servicePort = service.spec?.ports?.find((p) => p.port === ref.port);
  if (!servicePort) return { ok: false, reason: 'ServicePortError', message: `${where} is not listening on port ${ref.port}` };
  const portName = servicePort.name ?? '';
  const missing = { ok: false, reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}` } as const;

  const endpointsType = registry.lookup('', 'v1', 'endpoints');
  const endpoints = endpointsType && (objects.get(endpointsType, ref.namespace, ref.name) as Endpoints | undefined);
  if (endpoints) {
    const candidates = (endpoints.subsets ?? []).flatMap((subset) => {
      const port = subset.ports?.find((p) => (p.name ?? '') === portName);
      return port ? (subset.addresses ?? []).map((a) => ({ host: a.ip, port: port.port })) : [];
    });
    return candidates.length > 0 ? { ok: true, ...pick(candidates) } : missing;
  }
  const slicesType = registry.lookup('discovery.svc.io', 'v1', 'endpointslices');
  const all = slicesType ? (objects.list(slicesType, ref.namespace) as unknown as Slice[]) : [];
  const slices = all.filter((slice) => slice.metadata.labels?.[SERVICE_NAME_LABEL] === ref.name);
  const candidates = slices.flatMap((slice) => {
      const port = slice.ports?.find((p) => (p.name ?? '') === portName)?.port;
      if (port === undefined) return [];
      return (slice.endpoints ?? []).filter((e) => e.conditions?.ready !== false).flatMap((e) => (e.addresses ?? []).map((host) => ({ host, port })));
    });
  if (candidates.length > 0) return { ok: true, ...pick(candidates) };
  return slices.length > 0 ? missing : { ok: false, reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
}
