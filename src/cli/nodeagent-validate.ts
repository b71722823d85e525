import { existsSync, readFileSync } from 'node:fs';
import { quantityValue } from '../api/index.js';
import { parseCpuPolicyOptions, parseReservedMemory, parseTopologyPolicyOptions } from '../nodeagent/index.js';
import { FlagError } from './flags.js';
import type { NodeAgentFlags } from './nodeagent-flags.js';

/**
 * The rules of the node agent's options that involve more than one option or must hold whatever
 * source set them (a config file skips the flag parser's per-flag checks only for shape: each
 * value still passes its row's `validate`). Every rule here is one the spec states.
 */

/** Labels in the svc.io namespace a node may set on itself (`--node-labels`). */
const ALLOWED_LABELS = new Set([
  'beta.svc.io/arch',
  'beta.svc.io/instance-type',
  'beta.svc.io/os',
  'failure-domain.beta.svc.io/region',
  'failure-domain.beta.svc.io/zone',
  'svc.io/arch',
  'svc.io/hostname',
  'svc.io/os',
  'node.svc.io/instance-type',
  'topology.svc.io/region',
  'topology.svc.io/zone',
]);
const ALLOWED_LABEL_PREFIXES = ['nodeagent.svc.io/', 'node.svc.io/'];

const ENFORCE_VALUES = new Set(['none', 'pods', 'system-reserved', 'system-reserved-compressible', 'svc-reserved', 'svc-reserved-compressible']);
const TAINT_EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
const RESERVABLE = new Set(['cpu', 'memory', 'pid', 'ephemeral-storage']);
const EVICTION_SIGNALS = new Set(['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'containerfs.available', 'containerfs.inodesFree', 'pid.available']);

/** Is `label` (a key) one a node may give itself? Keys outside svc.io are always allowed. */
export function nodeLabelAllowed(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? '' : key.slice(0, slash);
  const inSvcNamespace = prefix === 'svc.io' || prefix.endsWith('.svc.io');
  if (!inSvcNamespace) return true;
  return ALLOWED_LABELS.has(key) || ALLOWED_LABEL_PREFIXES.some((allowed) => key.startsWith(allowed));
}

function checkCidr(cidr: string): string | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (!match) return `${JSON.stringify(cidr)} is not a CIDR`;
  const ip = match[1]!;
  const bits = Number(match[2]);
  const v6 = ip.includes(':');
  if (v6 ? bits > 128 : bits > 32) return `${JSON.stringify(cidr)} has a prefix longer than the address`;
  if (!v6 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return `${JSON.stringify(cidr)} is not a CIDR`;
  // A /112 holds 65536 addresses: anything shorter is too large for the pod range of one node.
  if (v6 && bits < 112) return `the IPv6 pod CIDR ${cidr} holds more than 65536 addresses (use a /112 or longer)`;
  return undefined;
}

/** Checks the options together. Throws `FlagError` naming the option at fault. */
export function validateNodeAgentOptions(o: NodeAgentFlags): void {
  const fail = (flag: string, message: string): never => {
    throw new FlagError(`${flag}: ${message}`, flag);
  };
  if (o.runonce && o.enableServer) fail('--runonce', 'is exclusive with --enable-server (set --enable-server=false, or enableServer: false)');

  if (o.imageGcLowThreshold >= o.imageGcHighThreshold) {
    fail('--image-gc-low-threshold', `(${o.imageGcLowThreshold}) must be below --image-gc-high-threshold (${o.imageGcHighThreshold})`);
  }

  const enforce = o.enforceNodeAllocatable;
  for (const value of enforce) if (!ENFORCE_VALUES.has(value)) fail('--enforce-node-allocatable', `unknown value ${JSON.stringify(value)} (one of ${[...ENFORCE_VALUES].join(', ')})`);
  if (enforce.includes('none') && enforce.length > 1) fail('--enforce-node-allocatable', '"none" must stand alone');
  if (enforce.some((v) => v.startsWith('system-reserved')) && !o.systemReservedCgroup) {
    fail('--enforce-node-allocatable', 'system-reserved needs --system-reserved-cgroup');
  }
  if (enforce.some((v) => v.startsWith('svc-reserved')) && !o.svcReservedCgroup) fail('--enforce-node-allocatable', 'svc-reserved needs --svc-reserved-cgroup');

  for (const key of Object.keys(o.nodeLabels)) {
    if (!nodeLabelAllowed(key)) {
      fail('--node-labels', `${JSON.stringify(key)} is in the svc.io namespace but not allowed: use the nodeagent.svc.io/ or node.svc.io/ prefix, or a well-known label`);
    }
  }

  for (const taint of o.registerWithTaints) {
    const match = /^([^=:]+)(=([^:]*))?:(.+)$/.exec(taint);
    if (!match) fail('--register-with-taints', `${JSON.stringify(taint)} is not of the form <key>=<value>:<effect>`);
    if (!TAINT_EFFECTS.has(match![4]!)) fail('--register-with-taints', `${JSON.stringify(taint)}: the effect must be NoSchedule, PreferNoSchedule or NoExecute`);
  }

  if (o.podCidr !== undefined) {
    const problem = checkCidr(o.podCidr);
    if (problem) fail('--pod-cidr', problem);
  }

  for (const [flag, reserved] of [
    ['--svc-reserved', o.svcReserved],
    ['--system-reserved', o.systemReserved],
  ] as const) {
    for (const [resource, quantity] of Object.entries(reserved)) {
      if (!RESERVABLE.has(resource)) fail(flag, `${JSON.stringify(resource)} cannot be reserved (only cpu, memory, pid and ephemeral-storage)`);
      if (quantityValue(quantity) === undefined) fail(flag, `${resource}=${quantity}: not a quantity`);
    }
  }

  for (const [flag, thresholds] of [
    ['--eviction-hard', o.evictionHard],
    ['--eviction-soft', o.evictionSoft],
    ['--eviction-minimum-reclaim', o.evictionMinimumReclaim],
  ] as const) {
    for (const [signal, value] of Object.entries(thresholds)) {
      if (!EVICTION_SIGNALS.has(signal)) fail(flag, `unknown eviction signal ${JSON.stringify(signal)}`);
      const pct = /^(\d+(\.\d+)?)%$/.exec(value);
      if (pct ? Number(pct[1]) > 100 : quantityValue(value) === undefined) fail(flag, `${signal}=${value}: not a quantity or a percentage up to 100%`);
    }
  }
  for (const [signal, grace] of Object.entries(o.evictionSoftGracePeriod)) {
    if (!EVICTION_SIGNALS.has(signal)) fail('--eviction-soft-grace-period', `unknown eviction signal ${JSON.stringify(signal)}`);
    if (!/^\d+(\.\d+)?(ns|us|ms|s|m|h)/.test(grace)) fail('--eviction-soft-grace-period', `${signal}=${grace}: not a duration`);
  }
  for (const signal of Object.keys(o.evictionSoft)) {
    if (!(signal in o.evictionSoftGracePeriod)) fail('--eviction-soft', `${signal} has no grace period in --eviction-soft-grace-period`);
  }

  for (const [resource, value] of Object.entries(o.qosReserved)) {
    if (resource !== 'memory') fail('--qos-reserved', `only memory can be reserved, not ${JSON.stringify(resource)}`);
    const pct = /^(\d+)%$/.exec(value);
    if (!pct || Number(pct[1]) > 100) fail('--qos-reserved', `memory=${value}: must be a percentage between 0% and 100%`);
  }
  if (Object.keys(o.qosReserved).length > 0 && o.featureGates['QOSReserved'] !== true) fail('--qos-reserved', 'needs the QOSReserved feature gate');
  if (Object.keys(o.qosReserved).length > 0 && !o.cgroupsPerQos) fail('--qos-reserved', 'needs --cgroups-per-qos: the reserve is a limit on the QoS cgroups');
  if ((o.logTextSplitStream || o.logTextInfoBufferSize !== undefined) && o.featureGates['LoggingAlphaOptions'] !== true) {
    fail(o.logTextSplitStream ? '--log-text-split-stream' : '--log-text-info-buffer-size', 'needs the LoggingAlphaOptions feature gate');
  }
  if (o.bootstrapSvcconfig !== undefined && o.svcconfig === undefined) fail('--bootstrap-svcconfig', 'needs --svcconfig: the file TLS bootstrap writes');
  if (o.rotateServerCertificates && o.featureGates['RotateNodeAgentServerCertificate'] === false) {
    fail('--rotate-server-certificates', 'needs the RotateNodeAgentServerCertificate feature gate');
  }

  for (const entry of o.reservedMemory) {
    if (!/^\d+:[a-z0-9.-]+=[^,=]+(,[a-z0-9.-]+=[^,=]+)*$/i.test(entry)) fail('--reserved-memory', `${JSON.stringify(entry)} is not of the form <numa-node>:<type>=<quantity>[,...]`);
  }
  if (o.reservedCpus !== undefined && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(o.reservedCpus)) fail('--reserved-cpus', `${JSON.stringify(o.reservedCpus)} is not a CPU list such as 0-3,8`);

  // The resource managers' rules the kubelet checks at start (docs/node-agent.md, "Resource managers").
  const reservesCpu = (o.reservedCpus ?? '').trim() !== '' || [o.svcReserved['cpu'], o.systemReserved['cpu']].some((q) => (quantityValue(q ?? '0') ?? 0) > 0);
  if (o.cpuManagerPolicy === 'static' && !reservesCpu) fail('--cpu-manager-policy', 'static needs reserved CPUs: --reserved-cpus, or a cpu in --svc-reserved or --system-reserved');
  for (const [flag, check] of [
    ['--cpu-manager-policy-options', () => parseCpuPolicyOptions(o.cpuManagerPolicyOptions, o.featureGates)],
    ['--topology-manager-policy-options', () => parseTopologyPolicyOptions(o.topologyManagerPolicyOptions, o.featureGates)],
    ['--reserved-memory', () => parseReservedMemory(o.reservedMemory)],
  ] as const) {
    try {
      check();
    } catch (error) {
      fail(flag, (error as Error).message.replace(/^--reserved-memory: /, ''));
    }
  }
  if (o.memoryManagerPolicy === 'Static' && o.reservedMemory.length === 0) fail('--memory-manager-policy', 'Static needs --reserved-memory: the memory reserved for the system on each NUMA node');

  if (o.cloudProvider !== undefined && o.cloudProvider !== '' && o.cloudProvider !== 'external') {
    fail('--cloud-provider', `${JSON.stringify(o.cloudProvider)}: only empty (no provider) or "external" are supported`);
  }
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    fail(o.tlsCertFile === undefined ? '--tls-cert-file' : '--tls-private-key-file', 'is required when the other of --tls-cert-file/--tls-private-key-file is given');
  }
}

/** The "0 uses N" rules of the rate options: the values the agent actually runs with. */
export function effectiveRates(o: NodeAgentFlags) {
  return {
    apiQps: o.svcApiQps === 0 ? 50 : o.svcApiQps,
    apiBurst: o.svcApiBurst === 0 ? 100 : o.svcApiBurst,
    eventQps: o.eventQps === 0 ? 5 : o.eventQps,
    eventBurst: o.eventBurst === 0 ? 10 : o.eventBurst,
    /** Undefined: image pulls are not rate limited. */
    registry: o.registryQps > 0 ? { qps: o.registryQps, burst: o.registryBurst } : undefined,
  };
}

/**
 * Notices for options whose subsystem svc does not build: the option is accepted (so existing
 * configurations load) and the agent says what it does instead.
 */
export function notBuiltNotices(o: NodeAgentFlags): string[] {
  const notices: string[] = [];
  const note = (flag: string, what: string) => notices.push(`${flag}: ${what}`);
  if (o.cloudProvider === 'external') note('--cloud-provider=external', 'no cloud provider runs; the node is not tainted uninitialized');
  if (o.cpuManagerReconcilePeriod !== undefined && o.cpuManagerPolicy === 'none') note('--cpu-manager-reconcile-period', 'has no effect without a CPU manager');
  return notices;
}

/** What the host checks read, injectable so tests can describe other hosts. */
export interface HostFacts {
  /** Bytes of swap in use or available (from /proc/swaps): > 0 means swap is on. */
  readonly swapDevices: number;
  readonly cgroupVersion: 1 | 2;
}

/** This machine's facts, read from /proc and /sys. */
export function readHostFacts(): HostFacts {
  let swapDevices = 0;
  try {
    // The first line is the header; each further line is an active swap device or file.
    swapDevices = readFileSync('/proc/swaps', 'utf8').trim().split('\n').length - 1;
  } catch {
    swapDevices = 0;
  }
  // cgroup v2 mounts a unified hierarchy whose root lists its controllers in this file.
  const cgroupVersion = existsSync('/sys/fs/cgroup/cgroup.controllers') ? 2 : 1;
  return { swapDevices, cgroupVersion };
}

/** The host checks the spec names: refuse to start on swap / cgroup v1 unless told not to. */
export function checkHost(o: NodeAgentFlags, host: HostFacts): void {
  if (o.failSwapOn && host.swapDevices > 0) {
    throw new FlagError('swap is on: the node agent refuses to run with swap on; turn swap off or set --fail-swap-on=false (failSwapOn: false)', '--fail-swap-on');
  }
  if (o.failCgroupv1 && host.cgroupVersion === 1) {
    throw new FlagError('this host uses cgroup v1: the node agent refuses to run on it; set --fail-cgroupv1=false (failCgroupV1: false) to run anyway', '--fail-cgroupv1');
  }
}
