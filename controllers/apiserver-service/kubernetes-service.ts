import { interval, map, startWith, type Observable } from 'rxjs';
import { canonicalJson, firstServiceIp, isStatusError, microTime, SERVICE_NAME_LABEL, type EndpointSlice, type Endpoints, type Lease, type Service } from '../../src/api/index.js';
import { builtin, type Client, type InformerFactory } from '../../src/client/index.js';
import { controller, type ControllerResult } from '../controller.js';

/**
 * The `kubernetes` Service in `default`, as every API server keeps it upstream: cluster IP the
 * first address of the service range, port 443 (`https`) to the servers' secure port, and its
 * Endpoints and EndpointSlice listing every live API server. Each server holds a Lease of its own
 * in the system namespace (renewed every `intervalMs`, live for `leaseSeconds`) naming its
 * address, the way upstream's lease endpoint reconciler keeps one key per server: so several
 * servers list each other, and one that stops leaves the list once its Lease lapses (or at once,
 * when it stops cleanly: `stop` deletes its Lease and takes itself out). Deleting or editing the
 * Service, its Endpoints or its slice is repaired at once (informers on all three).
 */

export const KUBERNETES_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;
/** Where the API servers' Leases live (svc's kube-system) and the label that finds them. */
export const APISERVER_LEASE_NAMESPACE = 'svc-system';
export const APISERVER_LEASE_LABEL = 'apiserver.svc.io/identity';
/** On each Lease: the address and port its server is reached at by pods. */
export const ADVERTISE_ANNOTATION = 'apiserver.svc.io/advertise-address';
/** Upstream's mark for Endpoints the EndpointSlice mirroring loop must not copy (the server writes the slice itself). */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'apiserver.svc.io';
const PORT_NAME = 'https';

export interface KubernetesServiceOptions {
  readonly client: Client;
  readonly informers: InformerFactory;
  /** `--service-cluster-ip-range`: the Service's IP is its first address. */
  readonly serviceCidr: string;
  /** The address pods reach this server at (`--advertise-address`). */
  readonly advertiseAddress: string;
  /** The secure port (the Service's targetPort and the endpoints' port). */
  readonly securePort: number;
  /**
   * Upstream's master-count reconciler (`--endpoint-reconciler-type=master-count`,
   * `--apiserver-count`) in place of the Leases: each server adds its address to the Endpoints
   * and trims the list to this many. Unset: the lease reconciler.
   */
  readonly masterCount?: number | undefined;
  /** This server's identity: its Lease's name and holder. */
  readonly identity: string;
  /** Lease renewal period (upstream: 10 s). */
  readonly intervalMs?: number;
  /** How long a Lease counts after its last renewal (upstream's master lease TTL: 15 s). */
  readonly leaseSeconds?: number;
  readonly stop$: Observable<unknown>;
  /** Now, for the Lease times and their expiry (tests move it). */
  readonly now?: () => number;
}

const KEY = `${KUBERNETES_SERVICE.namespace}/${KUBERNETES_SERVICE.name}`;

/** The loop: one key, reconciled on any change of the Service, its endpoints, the Leases, and each renewal tick. */
export function kubernetesService(options: KubernetesServiceOptions): Observable<ControllerResult<unknown>> {
  const { client, informers } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 10_000;
  const leaseSeconds = options.leaseSeconds ?? 15;
  const named = { fieldSelector: `metadata.name=${KUBERNETES_SERVICE.name}`, namespace: KUBERNETES_SERVICE.namespace };
  const services = informers.informer(builtin.services, named);
  const endpoints = informers.informer(builtin.endpoints, named);
  const slices = informers.informer(builtin.endpointSlices, { namespace: KUBERNETES_SERVICE.namespace, labelSelector: `${SERVICE_NAME_LABEL}=${KUBERNETES_SERVICE.name}` });
  const leases = informers.informer(builtin.leases, { namespace: APISERVER_LEASE_NAMESPACE, labelSelector: APISERVER_LEASE_LABEL });
  const toKey = map(() => KEY);
  const clusterIp = firstServiceIp(options.serviceCidr);
  let renewedAt = -Infinity;
  return controller<unknown>({
    name: 'kubernetes-service',
    for: services,
    watches: [
      { events$: endpoints.events$.pipe(toKey), synced$: endpoints.synced$ },
      { events$: slices.events$.pipe(toKey), synced$: slices.synced$ },
      { events$: leases.events$.pipe(toKey), synced$: leases.synced$ },
      interval(intervalMs).pipe(startWith(0), toKey),
    ],
    stop$: options.stop$,
    drainTimeoutMs: 5_000,
    reconcile: async () => {
      let live: string[];
      if (options.masterCount !== undefined) {
        live = masterCountAddresses(listedAddresses(endpoints.store.get(KEY)), options.advertiseAddress, options.masterCount);
      } else {
        if (now() - renewedAt >= intervalMs * 0.8) {
          await renewLease(client, leases.store.get(`${APISERVER_LEASE_NAMESPACE}/${options.identity}`), options, leaseSeconds, now());
          renewedAt = now();
        }
        live = liveAddresses(leases.store.list(), now());
        // Our own Lease may not be in the cache yet: we are live.
        if (!live.includes(options.advertiseAddress)) live.push(options.advertiseAddress);
        live.sort();
      }
      await ensureService(client, services.store.get(KEY), clusterIp, options.securePort);
      await ensureEndpoints(client, endpoints.store.get(KEY), live, options.securePort);
      await ensureSlice(client, slices.store.get(KEY), live, options.securePort, options.advertiseAddress.includes(':') ? 'IPv6' : 'IPv4');
    },
  });
}

/** On a clean stop: this server's Lease deleted and its address taken out of the endpoints. */
export async function withdrawApiServer(client: Client, identity: string, advertiseAddress: string, securePort: number): Promise<void> {
  await ignoreNotFound(client.delete(builtin.leases, identity, { namespace: APISERVER_LEASE_NAMESPACE }));
  const ns = { namespace: KUBERNETES_SERVICE.namespace };
  const current = await ignoreNotFound(client.get(builtin.endpoints, KUBERNETES_SERVICE.name, ns));
  if (!current) return;
  const others = (current.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).filter((ip) => ip !== advertiseAddress);
  await ensureEndpoints(client, current, others, securePort).catch(() => undefined);
  const slice = await ignoreNotFound(client.get(builtin.endpointSlices, KUBERNETES_SERVICE.name, ns));
  if (slice) await ensureSlice(client, slice, others, securePort, slice.addressType).catch(() => undefined);
}

const listedAddresses = (endpoints: Endpoints | undefined): string[] => (endpoints?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));

/**
 * Upstream's master-count rule: the list is right when it holds this server and at most `count`
 * addresses; else this server adds itself and, while there are too many, removes the address
 * after its own (wrapping round). Each server removing its successor converges on `count` live
 * ones; a dead server stays until another's turn removes it.
 */
export function masterCountAddresses(listed: readonly string[], own: string, count: number): string[] {
  const addresses = [...new Set([...listed, own])].sort();
  if (listed.includes(own) && new Set(listed).size <= count) return addresses;
  while (addresses.length > count) addresses.splice((addresses.indexOf(own) + 1) % addresses.length, 1);
  return addresses;
}

function liveAddresses(leases: readonly Lease[], nowMs: number): string[] {
  const addresses = new Set<string>();
  for (const lease of leases) {
    const renewed = Date.parse(lease.spec?.renewTime ?? '');
    const seconds = lease.spec?.leaseDurationSeconds ?? 0;
    const address = lease.metadata.annotations?.[ADVERTISE_ANNOTATION];
    if (address && Number.isFinite(renewed) && renewed + seconds * 1000 > nowMs) addresses.add(address);
  }
  return [...addresses];
}

async function renewLease(client: Client, current: Lease | undefined, o: KubernetesServiceOptions, leaseSeconds: number, nowMs: number): Promise<void> {
  const metadata = {
    name: o.identity,
    namespace: APISERVER_LEASE_NAMESPACE,
    labels: { [APISERVER_LEASE_LABEL]: 'svc-apiserver' },
    annotations: { [ADVERTISE_ANNOTATION]: o.advertiseAddress },
  };
  const spec = { holderIdentity: o.identity, leaseDurationSeconds: leaseSeconds, renewTime: microTime(nowMs) };
  if (!current) {
    try {
      await client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata, spec: { ...spec, acquireTime: microTime(nowMs) } }, { namespace: APISERVER_LEASE_NAMESPACE });
      return;
    } catch (error) {
      if (!isStatusError(error) || error.code !== 409) throw error;
      current = await client.get(builtin.leases, o.identity, { namespace: APISERVER_LEASE_NAMESPACE });
    }
  }
  await client.update(
    builtin.leases,
    { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...metadata.labels }, annotations: { ...current.metadata.annotations, ...metadata.annotations } }, spec: { ...current.spec, ...spec } },
    { namespace: APISERVER_LEASE_NAMESPACE },
  );
}

function desiredService(clusterIp: string, securePort: number): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: clusterIp,
      clusterIPs: [clusterIp],
      ports: [{ name: PORT_NAME, port: 443, protocol: 'TCP', targetPort: securePort }],
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: [clusterIp.includes(':') ? 'IPv6' : 'IPv4'],
      ipFamilyPolicy: 'SingleStack',
    },
  };
}

async function ensureService(client: Client, current: Service | undefined, clusterIp: string, securePort: number): Promise<void> {
  const desired = desiredService(clusterIp, securePort);
  const ns = { namespace: KUBERNETES_SERVICE.namespace };
  if (!current) {
    await ignoreConflict(client.create(builtin.services, desired, ns));
    return;
  }
  const port = current.spec?.ports?.[0];
  if (current.spec?.ports?.length === 1 && port?.port === 443 && port.targetPort === securePort && port.name === PORT_NAME && current.spec.clusterIP === clusterIp) return;
  // The cluster IP is immutable once set: a Service that holds another one is replaced.
  if (current.spec?.clusterIP && current.spec.clusterIP !== clusterIp) {
    await ignoreNotFound(client.delete(builtin.services, KUBERNETES_SERVICE.name, ns));
    await ignoreConflict(client.create(builtin.services, desired, ns));
    return;
  }
  await ignoreConflict(client.update(builtin.services, { ...current, spec: { ...current.spec, ports: desired.spec!.ports } }, ns));
}

async function ensureEndpoints(client: Client, current: Endpoints | undefined, addresses: readonly string[], securePort: number): Promise<void> {
  const subsets = addresses.length === 0 ? [] : [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: PORT_NAME, port: securePort, protocol: 'TCP' as const }] }];
  const ns = { namespace: KUBERNETES_SERVICE.namespace };
  const labels = { [SKIP_MIRROR_LABEL]: 'true' };
  if (!current) {
    await ignoreConflict(client.create(builtin.endpoints, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels }, subsets }, ns));
    return;
  }
  if (sameJson(current.subsets ?? [], subsets) && current.metadata.labels?.[SKIP_MIRROR_LABEL] === 'true') return;
  await ignoreConflict(client.update(builtin.endpoints, { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...labels } }, subsets }, ns));
}

async function ensureSlice(client: Client, current: EndpointSlice | undefined, addresses: readonly string[], securePort: number, addressType: EndpointSlice['addressType']): Promise<void> {
  const endpoints = addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true, serving: true, terminating: false } }));
  const ports = [{ name: PORT_NAME, port: securePort, protocol: 'TCP' as const }];
  const labels = { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE.name, [MANAGED_BY_LABEL]: MANAGED_BY };
  const ns = { namespace: KUBERNETES_SERVICE.namespace };
  if (!current) {
    await ignoreConflict(
      client.create(builtin.endpointSlices, { apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels }, addressType, endpoints, ports }, ns),
    );
    return;
  }
  if (sameJson(current.endpoints ?? [], endpoints) && sameJson(current.ports ?? [], ports)) return;
  await ignoreConflict(client.update(builtin.endpointSlices, { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...labels } }, endpoints, ports }, ns));
}

/**
 * Equal as values, whatever the order of their keys: the informer's objects come in the wire's
 * field order (protobuf's for a slice's ports: name, protocol, port), not the order written here,
 * and a plain JSON comparison sent a PUT of an unchanged slice every pass.
 */
const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** A 409 means another server (or our own stale cache) got there first: the informer's event brings the next reconcile. */
async function ignoreConflict<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isStatusError(error) && error.code === 409) return undefined;
    throw error;
  }
}

async function ignoreNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return undefined;
    throw error;
  }
}
