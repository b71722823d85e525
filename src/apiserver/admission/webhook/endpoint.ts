import { isIPv6 } from 'node:net';
import { SERVICE_NAME_LABELS, type WebhookClientConfig } from '../../../api/index.js';
import type { AdmissionEnv } from '../plugin.js';

/** Where to send a webhook's review: the URL to connect to and the name its certificate must carry. */
export interface WebhookTarget {
  readonly url: string;
  /** TLS server name (SNI and verification); absent: the URL's host. */
  readonly servername?: string;
}

/** Why a webhook could not be reached; the message becomes part of the `failed calling webhook` error. */
export class WebhookUnreachable extends Error {}

type Port = { name?: string; port?: number; targetPort?: number | string };
type Subset = { addresses?: { ip: string }[]; ports?: Port[] };
type SliceEndpoint = { addresses?: string[]; conditions?: { ready?: boolean } };

/** The label that ties an EndpointSlice to its Service (Kubernetes' name, and svc's). */

/**
 * The target of a webhook. A `url` is used as given. A `service` reference cannot go through the
 * Service's ClusterIP (svc has no service proxy), so it resolves through the Service's Endpoints,
 * or failing those its EndpointSlices, to a ready address and the port the service port targets;
 * the certificate must be valid for `<service>.<namespace>.svc`, the name Kubernetes verifies.
 * No ready address: unreachable.
 */
export function webhookTarget(env: AdmissionEnv, config: WebhookClientConfig): WebhookTarget {
  if (config.url !== undefined) return { url: config.url };
  const ref = config.service!;
  const core = (resource: string) => env.registry.lookup('', 'v1', resource)!;
  const service = env.objects.get(core('services'), ref.namespace, ref.name);
  const servicePort = ((service?.['spec'] as { ports?: Port[] } | undefined)?.ports ?? []).find((p) => p.port === ref.port);
  // The backend port: the endpoint port named like the service port, else its numeric target, else the only one.
  const portOf = (ports: readonly Port[]) =>
    (servicePort?.name !== undefined ? ports.find((p) => p.name === servicePort.name)?.port : undefined) ??
    (typeof servicePort?.targetPort === 'number' ? servicePort.targetPort : undefined) ??
    (ports.length === 1 ? ports[0]!.port : undefined) ??
    ref.port;
  const target = (address: string, port: number) => ({
    url: `https://${isIPv6(address) ? `[${address}]` : address}:${port}${ref.path ?? ''}`,
    servername: `${ref.name}.${ref.namespace}.svc`,
  });

  const endpoints = env.objects.get(core('endpoints'), ref.namespace, ref.name);
  for (const subset of (endpoints?.['subsets'] as Subset[] | undefined) ?? []) {
    const address = subset.addresses?.[0]?.ip;
    if (address) return target(address, portOf(subset.ports ?? []));
  }
  const sliceType = env.registry.lookup('discovery.svc.io', 'v1', 'endpointslices');
  for (const slice of sliceType ? env.objects.list(sliceType, ref.namespace) : []) {
    if (!SERVICE_NAME_LABELS.some((label) => slice.metadata.labels?.[label] === ref.name)) continue;
    const ready = ((slice['endpoints'] as SliceEndpoint[] | undefined) ?? []).find((e) => e.conditions?.ready !== false && e.addresses?.length);
    if (ready) return target(ready.addresses![0]!, portOf((slice['ports'] as Port[] | undefined) ?? []));
  }
  throw new WebhookUnreachable(`service "${ref.namespace}/${ref.name}" has no ready endpoints: svc reaches webhook services through their Endpoints or EndpointSlices`);
}
