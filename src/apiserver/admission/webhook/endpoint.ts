import { isIPv6 } from 'node:net';
import type { WebhookClientConfig } from '../../../api/index.js';
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

/**
 * The target of a webhook. A `url` is used as given. A `service` reference cannot go through the
 * Service's ClusterIP (svc has no service proxy), so it resolves through the Service's Endpoints
 * to a ready address and the port the service port targets; the certificate must be valid for
 * `<service>.<namespace>.svc`, the name Kubernetes verifies. No ready address: unreachable.
 */
export function webhookTarget(env: AdmissionEnv, config: WebhookClientConfig): WebhookTarget {
  if (config.url !== undefined) return { url: config.url };
  const ref = config.service!;
  const core = (resource: string) => env.registry.lookup('', 'v1', resource)!;
  const where = `${ref.namespace}/${ref.name}`;
  const endpoints = env.objects.get(core('endpoints'), ref.namespace, ref.name);
  const service = env.objects.get(core('services'), ref.namespace, ref.name);
  const servicePort = ((service?.['spec'] as { ports?: Port[] } | undefined)?.ports ?? []).find((p) => p.port === ref.port);
  for (const subset of (endpoints?.['subsets'] as Subset[] | undefined) ?? []) {
    const address = subset.addresses?.[0]?.ip;
    if (!address) continue;
    const ports = subset.ports ?? [];
    const port =
      (servicePort?.name !== undefined ? ports.find((p) => p.name === servicePort.name)?.port : undefined) ??
      (typeof servicePort?.targetPort === 'number' ? servicePort.targetPort : undefined) ??
      (ports.length === 1 ? ports[0]!.port : undefined) ??
      ref.port;
    const host = isIPv6(address) ? `[${address}]` : address;
    return { url: `https://${host}:${port}${ref.path ?? ''}`, servername: `${ref.name}.${ref.namespace}.svc` };
  }
  throw new WebhookUnreachable(`service "${where}" has no ready endpoints: svc reaches webhook services through their Endpoints`);
}
