/**
 * containerd's config.toml (version 2) for a node's runtime: its own root, state and socket,
 * the CRI plugin with svc's pause image, runc through cgroupfs, and CNI from given directories.
 * Generated rather than templated by hand so a test, `svc up` or an operator gets the same
 * settings, each of which exists for a reason written beside it.
 */

export interface ContainerdConfigOptions {
  /** Persistent data: content store, snapshots, metadata. */
  readonly root: string;
  /** Runtime state: sockets, task bundles. */
  readonly state: string;
  /** gRPC socket path (the CRI endpoint is `unix://<address>`). */
  readonly address: string;
  readonly sandboxImage: string;
  /** `overlayfs`, or `native` where overlay cannot be mounted (for example nested overlay). */
  readonly snapshotter: 'overlayfs' | 'native';
  readonly cniConfDir: string;
  readonly cniBinDir: string;
  /** IP the CRI streaming server (exec, attach, port-forward) listens on; default 127.0.0.1. */
  readonly streamServerAddress?: string;
  /** Its port; `0` (the default) lets the kernel pick one, so several containerds can coexist. */
  readonly streamServerPort?: number;
  /**
   * Mount sandboxes' network namespaces under `<state>/io.containerd.grpc.v1.cri/netns` instead of the host-wide
   * `/var/run/netns` (default false), so several containerds on one host (tests) each own theirs.
   */
  readonly netnsUnderStateDir?: boolean;
  /** Use systemd to manage cgroups instead of cgroupfs (default false). */
  readonly systemdCgroup?: boolean;
  /**
   * Clamp containers' oom_score_adj to containerd's own rather than fail. Default true: without
   * CAP_SYS_RESOURCE (unprivileged VMs, nested containers) runc cannot lower the score and every
   * sandbox fails with "can't get final child's PID from pipe: EOF".
   */
  readonly restrictOomScoreAdj?: boolean;
  /**
   * The hosts directory (`<registry>/hosts.toml`, registry-hosts.ts) the CRI plugin resolves
   * registries with: mirrors, TLS, plain HTTP. Unset: containerd's defaults (HTTPS to each registry).
   */
  readonly registryConfigPath?: string;
  /** Credentials per registry host (`registryAuths()`), which hosts.toml cannot hold. */
  readonly registryAuths?: ReadonlyMap<string, { readonly username?: string; readonly password?: string; readonly auth?: string; readonly identitytoken?: string }>;
}

const str = (value: string): string => JSON.stringify(value); // TOML basic strings share JSON's escapes

export function containerdConfig(o: ContainerdConfigOptions): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${str(o.root)}`,
    `state = ${str(o.state)}`,
    // Plugins this node does not use stay off, so they neither fail nor start on a bare machine.
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]',
    '',
    '[grpc]',
    `  address = ${str(o.address)}`,
    '',
    '[ttrpc]',
    `  address = ${str(`${o.address}.ttrpc`)}`,
    '',
    '[debug]',
    '  level = "warn"',
    '',
    `[${cri}]`,
    `  sandbox_image = ${str(o.sandboxImage)}`,
    `  restrict_oom_score_adj = ${o.restrictOomScoreAdj ?? true}`,
    `  stream_server_address = ${str(o.streamServerAddress ?? '127.0.0.1')}`,
    `  stream_server_port = ${str(String(o.streamServerPort ?? 0))}`,
    `  netns_mounts_under_state_dir = ${o.netnsUnderStateDir ?? false}`,
    '  enable_selinux = false',
    '  disable_apparmor = true',
    '',
    `[${cri}.containerd]`,
    `  snapshotter = ${str(o.snapshotter)}`,
    '  default_runtime_name = "runc"',
    '',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    '',
    `[${cri}.containerd.runtimes.runc.options]`,
    `  SystemdCgroup = ${o.systemdCgroup ?? false}`,
    '',
    `[${cri}.cni]`,
    `  bin_dir = ${str(o.cniBinDir)}`,
    `  conf_dir = ${str(o.cniConfDir)}`,
    '  max_conf_num = 1',
    '',
    ...registrySection(cri, o),
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${str(`${o.root}/opt`)}`,
    '',
  ].join('\n');
}

/**
 * The CRI plugin's registry table: `config_path` (containerd 1.6 refuses `mirrors` beside it, so
 * mirrors live in hosts.toml only) and, per host, `configs."<host>".auth` — still read with
 * config_path, for pulls whose request carries no credentials of its own.
 */
function registrySection(cri: string, o: ContainerdConfigOptions): string[] {
  if (o.registryConfigPath === undefined && (o.registryAuths?.size ?? 0) === 0) return [];
  const lines = [`[${cri}.registry]`, ...(o.registryConfigPath !== undefined ? [`  config_path = ${str(o.registryConfigPath)}`] : []), ''];
  for (const [host, auth] of o.registryAuths ?? []) {
    lines.push(`[${cri}.registry.configs.${str(host)}.auth]`);
    for (const [key, value] of Object.entries(auth)) if (value !== undefined) lines.push(`  ${key} = ${str(value)}`);
    lines.push('');
  }
  return lines;
}
