import { Agent } from 'node:https';
import { createSecureContext, type ConnectionOptions } from 'node:tls';
import type { APIService } from '../../api/index.js';
import type { ServiceRef } from './service-endpoint.js';

/** The client certificate the API server presents to aggregated servers (`--proxy-client-cert-file`/`--proxy-client-key-file`). */
export interface ProxyClientCertificate {
  readonly cert: string;
  readonly key: string;
}

/** A group-version an APIService sends to a Service, with how to reach it. */
export interface RemoteApiService {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly service: ServiceRef;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  /** TLS toward any endpoint of the Service (the endpoint's address and port are added per connection). */
  readonly tls: ConnectionOptions;
  /** Keeps connections to the Service's endpoints open between requests. */
  readonly agent: Agent;
  /** The name and spec it was made from: an unchanged APIService keeps its connections. */
  readonly signature: string;
  /** Why `caBundle` cannot be used (not PEM certificates); such a remote is never dialled. */
  readonly caError?: string | undefined;
}

/** Whether OpenSSL accepts the bundle as trusted certificates: the reason when it does not. */
function caProblem(ca: string): string | undefined {
  if (!/-----BEGIN CERTIFICATE-----/.test(ca)) return 'spec.caBundle holds no PEM certificate';
  try {
    createSecureContext({ ca });
    return undefined;
  } catch (error) {
    return `spec.caBundle cannot be used: ${(error as Error).message}`;
  }
}

export const signatureOf = (apiService: APIService) => JSON.stringify([apiService.metadata.name, apiService.spec]);

/**
 * How svc talks to an aggregated server: TLS, its certificate checked against `caBundle` (or not
 * at all with `insecureSkipTLSVerify`, or against the system's CAs when neither is given) for the
 * name `<service>.<namespace>.svc`, as kube-aggregator does; svc's front-proxy client certificate
 * proves the requests come from the API server.
 */
export function remoteApiService(apiService: APIService, client: ProxyClientCertificate | undefined): RemoteApiService | undefined {
  const { spec } = apiService;
  if (!spec.service) return undefined;
  const service = { namespace: spec.service.namespace, name: spec.service.name, port: spec.service.port ?? 443 };
  const ca = !spec.insecureSkipTLSVerify && spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
  const tls: ConnectionOptions = {
    servername: `${service.name}.${service.namespace}.svc`,
    ...(client ? { cert: client.cert, key: client.key } : {}),
    ...(spec.insecureSkipTLSVerify
      ? { rejectUnauthorized: false }
      : { rejectUnauthorized: true, ...(ca !== undefined ? { ca } : {}) }),
  };
  return {
    name: apiService.metadata.name!,
    group: spec.group ?? '',
    version: spec.version,
    service,
    groupPriorityMinimum: spec.groupPriorityMinimum ?? 0,
    versionPriority: spec.versionPriority ?? 0,
    tls,
    agent: new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 8 }),
    signature: signatureOf(apiService),
    caError: ca === undefined ? undefined : caProblem(ca),
  };
}
