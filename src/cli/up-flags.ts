import { apiServerFlags } from './apiserver-flags.js';
import type { CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, withDefaults } from './flags.js';

/**
 * `svc up`'s options: svc-apiserver's table with defaults that suit a laptop (only loopback can
 * connect), and the few that shape its node.
 */
export const upFlags = defineFlags({
  ...withDefaults(apiServerFlags, { 'bind-address': '127.0.0.1' }),
  'disable-agent': flag.bool({
    meaning: 'Run the control plane only: no containerd and no node agent (pods stay Pending unless another node joins).',
  }),
  'pod-cidr': flag.string({
    valueName: 'cidr',
    default: '10.42.0.0/24',
    meaning: "The node's pod network (an IPv4 /24 on a bridge). When a route on the host already covers it, a free 10.x.y.0/24 is used instead; the choice is kept in <data-dir>/agent/pod-cidr.",
  }),
  'registry-config': flag.string({
    valueName: 'path',
    meaning:
      "A registries.yaml (k3s's shape: mirrors with endpoints and rewrites, per-registry auth and TLS) for the node: written into its containerd's hosts.toml directory and given to the node agent. Default <data-dir>/registries.yaml when that file exists. See docs/cluster.md.",
  }),
  'node-bootstrap-token': flag.bool({
    meaning:
      "Join the node with a bootstrap token instead of an admin credential: svc up makes a token (shown at start, valid 24h), the node agent gets its client certificate through TLS bootstrap (--bootstrap-svcconfig) and rotates it (--rotate-certificates); the API server trusts the cluster CA's client certificates and the controller manager signs with it.",
  }),
  'node-agent-port': flag.int({
    default: 10250,
    meaning: "The node agent's HTTPS port (logs, exec, attach, port-forward; the API server proxies to it). 0 picks a free port.",
  }),
  'dashboard-port': flag.int({
    default: 8001,
    meaning: "The web dashboard's port on 127.0.0.1 (svc dashboard, reading as the admin; docs/dashboard.md). 0 picks a free port. A port in use is reported and the cluster runs without it.",
    validate: (port) => (port >= 0 && port <= 65535 ? undefined : 'must be a port number (0-65535)'),
  }),
  'disable-dashboard': flag.bool({ meaning: 'Do not serve the web dashboard.' }),
  'hollow-nodes': flag.int({
    default: 0,
    valueName: 'n',
    meaning: "Also run this many hollow nodes in this process: the node agent's code on svc's simulated container runtime, labelled svc.io/simulated=true (their containers are simulated; docs/hollow-nodes.md). For trying scale on a laptop.",
    validate: (n) => (n >= 0 && n <= 100_000 ? undefined : 'must be between 0 and 100000'),
  }),
});

export const upDoc: CommandDoc = {
  name: 'svc up',
  usage: 'svc up [flags]',
  summary:
    'Starts a local cluster on the embedded sqlite store in --data-dir (./.svc), the way k3s does: the API server, the controller manager and the scheduler (leader election on, their secure ports off), and a node — its own containerd (config, socket and data under <data-dir>/containerd, a bridge CNI network for pod IPs) with the node agent. Writes <data-dir>/admin.svcconfig for kubectl and svc clients. Where containerd, runc or the CNI plugins are not installed it says which command installs them and runs the control plane only. Listens on 127.0.0.1 unless --bind-address says otherwise. Stop it with Ctrl-C (pods stop with it); the next `svc up` on the same data dir resumes the cluster and starts its pods again.',
  source: "src/cli/up-flags.ts (svc-apiserver's table with other defaults, plus the node's options)",
};
