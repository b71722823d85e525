import type { Service } from '../../api/index.js';

/** The namespace and name of the API server's own Service, whose variables every pod gets. */
export const MASTER_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;

/**
 * The service-link variables of `services`, as Kubernetes (and Docker links before it) names them,
 * for each Service with a cluster IP (not headless):
 *
 * - `WEB_SERVICE_HOST=10.0.0.7`, `WEB_SERVICE_PORT=80` (first port), `WEB_SERVICE_PORT_HTTP=80`
 *   (each named port);
 * - `WEB_PORT=tcp://10.0.0.7:80` (first port), and per port `WEB_PORT_80_TCP=tcp://10.0.0.7:80`,
 *   `..._PROTO=tcp`, `..._PORT=80`, `..._ADDR=10.0.0.7`.
 *
 * Names are upper-cased with `-` as `_`. IPv6 addresses are bracketed in the URLs.
 */
export function serviceEnvVars(services: readonly Service[]): Map<string, string> {
  const vars = new Map<string, string>();
  const sorted = [...services].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  for (const service of sorted) {
    const ip = service.spec?.clusterIP;
    const ports = service.spec?.ports ?? [];
    if (!ip || ip === 'None' || ports.length === 0) continue;
    const prefix = envName(service.metadata.name ?? '');
    vars.set(`${prefix}_SERVICE_HOST`, ip);
    vars.set(`${prefix}_SERVICE_PORT`, String(ports[0]!.port));
    for (const port of ports) if (port.name) vars.set(`${prefix}_SERVICE_PORT_${envName(port.name)}`, String(port.port));
    const hostPort = (port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
    for (const [index, port] of ports.entries()) {
      const protocol = port.protocol ?? 'TCP';
      const url = `${protocol.toLowerCase()}://${hostPort(port.port)}`;
      if (index === 0) vars.set(`${prefix}_PORT`, url);
      const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
      vars.set(portPrefix, url);
      vars.set(`${portPrefix}_PROTO`, protocol.toLowerCase());
      vars.set(`${portPrefix}_PORT`, String(port.port));
      vars.set(`${portPrefix}_ADDR`, ip);
    }
  }
  return vars;
}

const envName = (name: string) => name.replaceAll('-', '_').toUpperCase();
