import { StatusError, type Container } from '../../api/index.js';

/**
 * The port an httpGet or tcpSocket action names: a number, or the name of one of the container's
 * ports. A name that no port has is tried as a number written as a string, as the kubelet does.
 */
export function resolvePort(port: number | string, container: Container): number {
  let value: number;
  if (typeof port === 'number') value = port;
  else {
    const named = container.ports?.find((p) => p.name === port);
    value = named ? named.containerPort : /^\d+$/.test(port) ? Number(port) : NaN;
    if (Number.isNaN(value)) throw new StatusError({ reason: 'Invalid', message: `container "${container.name}" has no port named "${port}"` });
  }
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new StatusError({ reason: 'Invalid', message: `invalid port number: ${value}` });
  return value;
}

/** The host an action connects to: its own `host`, else the pod's IP. */
export function resolveHost(host: string | undefined, podIP: string | undefined): string {
  if (host) return host;
  if (podIP) return podIP;
  throw new StatusError({ reason: 'ServiceUnavailable', message: 'the pod has no IP yet and the action names no host' });
}

/** `host:port`, bracketing an IPv6 address. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
