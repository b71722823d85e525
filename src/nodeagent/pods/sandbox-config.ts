import { readFileSync } from 'node:fs';
import type { Pod } from '../../api/index.js';
import type { DNSConfig, Input, NamespaceMode, PodSandboxConfig, PortMapping, Protocol } from '../cri/index.js';
import { looseArray, looseBool, looseInt, looseObject, looseString, looseStrings } from './loose-fields.js';
import { podLabels, podLogDirectory } from './runtime-labels.js';

/** What a sandbox config needs besides the pod: the agent's options. */
export interface SandboxConfigOptions {
  /** `<podLogsDir>/<namespace>_<name>_<uid>` becomes the sandbox's log directory. */
  readonly podLogsDir: string;
  /** `--cluster-dns`: nameservers of `ClusterFirst` pods. Empty: they get the node's resolver. */
  readonly clusterDNS: readonly string[];
  /** `--cluster-domain`. */
  readonly clusterDomain: string;
  /** `--resolv-conf`: the node's resolver configuration (`Default` pods); '' for none. */
  readonly resolvConf: string;
  /** `--cgroup-root` + the pod's cgroup, when the agent manages cgroups (per pod: its QoS cgroup's `pod<uid>`); '' leaves it to the runtime. */
  readonly cgroupParent?: string | ((pod: Pod) => string) | undefined;
}

const HOSTNAME_MAX = 63;

/**
 * The CRI sandbox config of one pod attempt: metadata and the contract's labels, the hostname
 * (empty with host networking: this runtime refuses one there), DNS per `dnsPolicy`, hostPort
 * mappings, the namespaces the pod shares with the node, and the pod-level security context.
 */
export function sandboxConfig(pod: Pod, attempt: number, options: SandboxConfigOptions): Input<PodSandboxConfig> {
  const spec = pod.spec;
  const hostNetwork = spec.hostNetwork === true;
  const security = looseObject(spec.securityContext);
  const sysctls: Record<string, string> = {};
  for (const sysctl of looseArray(security, 'sysctls')) {
    const name = looseString(sysctl, 'name');
    if (name) sysctls[name] = looseString(sysctl, 'value') ?? '';
  }
  const privileged = [...(spec.initContainers ?? []), ...spec.containers].some((c) => looseBool(looseObject(c.securityContext), 'privileged') === true);
  const runAsUser = looseInt(security, 'runAsUser');
  const runAsGroup = looseInt(security, 'runAsGroup');
  const pid: NamespaceMode = spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER';
  return {
    metadata: { name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default', uid: pod.metadata.uid ?? '', attempt },
    hostname: hostNetwork ? '' : podHostname(pod),
    logDirectory: podLogDirectory(options.podLogsDir, pod),
    dnsConfig: dnsConfigOf(pod, options),
    portMappings: portMappingsOf(pod),
    labels: { ...pod.metadata.labels, ...podLabels(pod) },
    annotations: { ...pod.metadata.annotations },
    linux: {
      cgroupParent: typeof options.cgroupParent === 'function' ? options.cgroupParent(pod) : (options.cgroupParent ?? ''),
      sysctls,
      securityContext: {
        namespaceOptions: { network: hostNetwork ? 'NODE' : 'POD', pid, ipc: spec.hostIPC ? 'NODE' : 'POD' },
        privileged,
        ...(runAsUser !== undefined ? { runAsUser: { value: runAsUser } } : {}),
        ...(runAsGroup !== undefined ? { runAsGroup: { value: runAsGroup } } : {}),
        supplementalGroups: supplementalGroupsOf(security),
      },
    },
  };
}

function supplementalGroupsOf(security: Readonly<Record<string, unknown>> | undefined): number[] {
  const value = security?.['supplementalGroups'];
  return Array.isArray(value) ? value.filter((g): g is number => Number.isInteger(g)) : [];
}

/** `spec.hostname`, else the pod's name, cut to a DNS label as the kubelet does. */
export function podHostname(pod: Pod): string {
  const name = pod.spec.hostname || pod.metadata.name || '';
  return name.slice(0, HOSTNAME_MAX).replace(/[-.]+$/, '');
}

/** One mapping per container port with a hostPort (the CNI portmap plugin serves them). */
export function portMappingsOf(pod: Pod): Input<PortMapping>[] {
  const mappings: Input<PortMapping>[] = [];
  for (const container of pod.spec.containers) {
    for (const port of container.ports ?? []) {
      if (!port.hostPort) continue;
      mappings.push({ protocol: (port.protocol ?? 'TCP') as Protocol, containerPort: port.containerPort, hostPort: port.hostPort, hostIp: port.hostIP ?? '' });
    }
  }
  return mappings;
}

interface ResolvConf {
  servers: string[];
  searches: string[];
  options: string[];
}

function readResolvConf(path: string): ResolvConf {
  const conf: ResolvConf = { servers: [], searches: [], options: [] };
  if (!path) return conf;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return conf;
  }
  for (const line of text.split('\n')) {
    const [keyword, ...fields] = line.replace(/[#;].*$/, '').trim().split(/\s+/);
    if (keyword === 'nameserver' && fields[0]) conf.servers.push(fields[0]);
    else if (keyword === 'search' || keyword === 'domain') conf.searches = fields;
    else if (keyword === 'options') conf.options.push(...fields);
  }
  return conf;
}

/**
 * DNS by `dnsPolicy`, as the kubelet: `ClusterFirst` (the default) uses `--cluster-dns` with the
 * namespace's search path and `ndots:5`, falling back to the node's resolver when no cluster DNS is
 * set or the pod uses the host network; `ClusterFirstWithHostNet` is ClusterFirst even then;
 * `Default` is the node's resolver; `None` only `spec.dnsConfig`. `spec.dnsConfig` is merged into
 * every policy: servers and searches appended (duplicates dropped), options by name, the pod's winning.
 */
export function dnsConfigOf(pod: Pod, options: SandboxConfigOptions): Input<DNSConfig> {
  const policy = pod.spec.dnsPolicy ?? 'ClusterFirst';
  const hostNetwork = pod.spec.hostNetwork === true;
  let base: ResolvConf = { servers: [], searches: [], options: [] };
  const clusterFirst = options.clusterDNS.length > 0 && (policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && !hostNetwork));
  if (clusterFirst) {
    const namespace = pod.metadata.namespace ?? 'default';
    const domain = options.clusterDomain;
    const host = readResolvConf(options.resolvConf);
    base = {
      servers: [...options.clusterDNS],
      searches: domain ? [`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...host.searches] : host.searches,
      options: ['ndots:5'],
    };
  } else if (policy !== 'None') {
    base = readResolvConf(options.resolvConf);
  }
  const extra = looseObject(pod.spec.dnsConfig);
  const servers = unique([...base.servers, ...looseStrings(extra, 'nameservers')]);
  const searches = unique([...base.searches, ...looseStrings(extra, 'searches')]);
  const merged = new Map<string, string>();
  for (const option of base.options) merged.set(option.split(':')[0]!, option);
  for (const option of looseArray(extra, 'options')) {
    const name = looseString(option, 'name');
    if (!name) continue;
    const value = looseString(option, 'value');
    merged.set(name, value === undefined ? name : `${name}:${value}`);
  }
  return { servers, searches, options: [...merged.values()] };
}

const unique = (values: string[]): string[] => [...new Set(values)];
