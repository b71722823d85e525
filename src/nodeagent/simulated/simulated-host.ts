/**
 * The machine a hollow node reports: a fixed size (CPUs, memory, disk) chosen by whoever runs the
 * hollow nodes, never this host's, so a thousand hollow nodes on one machine each look like a
 * node of their own. Its identity is made up from the node's name (stable across restarts) and
 * says it is simulated in the OS image.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { NetworkInterfaceInfo } from 'node:os';
import type { AddressSources, HostInfo, SystemIdentity } from '../node/index.js';

export interface SimulatedHostShape {
  /** Logical CPUs. Default 4. */
  readonly cpus?: number;
  /** Memory in bytes. Default 16 GiB. */
  readonly memoryBytes?: number;
  /** The root dir's filesystem in bytes. Default 100 GiB. */
  readonly diskBytes?: number;
}

const GIB = 1024 ** 3;

/** A UUID made of the name's hash: the same node name has the same machine ID every run. */
function uuidOf(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function simulatedHost(nodeName: string, shape: SimulatedHostShape = {}): HostInfo {
  const cpus = shape.cpus ?? 4;
  const memoryBytes = shape.memoryBytes ?? 16 * GIB;
  const diskBytes = shape.diskBytes ?? 100 * GIB;
  const identity: SystemIdentity = Object.freeze({
    systemUUID: uuidOf(`system:${nodeName}`),
    machineID: uuidOf(`machine:${nodeName}`).replaceAll('-', ''),
    bootID: randomUUID(),
    kernelVersion: 'simulated',
    osImage: 'svc hollow node (simulated containers)',
  });
  return Object.freeze({
    hostname: () => nodeName,
    os: 'linux',
    arch: 'amd64',
    cpus: () => cpus,
    memory: () => ({ totalBytes: memoryBytes, availableBytes: memoryBytes }),
    filesystem: () => ({ capacityBytes: diskBytes, availableBytes: diskBytes }),
    pids: () => ({ max: 4_194_304, running: 0 }),
    system: () => identity,
  });
}

/**
 * The hollow node's one network interface, holding its made-up address: what the agent's address
 * check (`--node-ip` must be an address of the host) reads instead of this machine's.
 */
export function simulatedAddressSources(nodeIp: string): AddressSources {
  const info: NetworkInterfaceInfo = nodeIp.includes(':')
    ? { address: nodeIp, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:00:00:00:00:00', internal: false, cidr: `${nodeIp}/64`, scopeid: 0 }
    : { address: nodeIp, netmask: '255.255.255.255', family: 'IPv4', mac: '02:00:00:00:00:00', internal: false, cidr: `${nodeIp}/32` };
  return { interfaces: () => ({ hollow0: [info] }), ipv4Routes: () => '', ipv6Routes: () => '' };
}
