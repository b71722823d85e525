import { EXIT_OK, EXIT_USAGE, processIO, type CommandIO } from './command.js';

/**
 * `svc`: one binary, subcommands. Each entry is a summary and a runner taking the arguments
 * after its name; adding a command (the client verbs, `svc controller-manager`) is adding a row.
 * Runners are imported when chosen, so `svc --help` or a client verb never loads the server.
 */
interface Subcommand {
  readonly summary: string;
  run(argv: readonly string[], io: CommandIO): Promise<number>;
}

const subcommands: Readonly<Record<string, Subcommand>> = {
  up: {
    summary: 'Start a local cluster (API server on the embedded store)',
    run: async (argv, io) => (await import('./up-command.js')).up(argv, io),
  },
  'controller-manager': {
    summary: 'Run the controller manager against an API server (same as svc-controller-manager)',
    run: async (argv, io) => (await import('./controller-manager-command.js')).main(argv, io),
  },
  nodeagent: {
    summary: 'Run a node agent against an API server, or standalone (same as nodeagent)',
    run: async (argv, io) => (await import('./nodeagent-command.js')).main(argv, io),
  },
  'hollow-nodes': {
    summary: 'Run N hollow nodes: the real node agent on a simulated container runtime (scale tests; svc hollow-nodes --count 100)',
    run: async (argv, io) => (await import('./hollow-nodes-command.js')).hollowNodes(argv, io),
  },
  proxy: {
    summary: 'Route Service traffic on this node (iptables) and, with --dns-address, serve the cluster DNS',
    run: async (argv, io) => (await import('./proxy-command.js')).proxy(argv, io),
  },
  crd: {
    summary: 'Print the CustomResourceDefinitions a module defines, as YAML (svc crd MODULE[#EXPORT])',
    run: async (argv, io) => (await import('./crd-command.js')).crd(argv, io),
  },
  bench: {
    summary: 'Run benchmark files made with svc/bench and print (or compare) the results (svc bench FILE...)',
    run: async (argv, io) => (await import('./bench-command.js')).bench(argv, io),
  },
  record: {
    summary: 'Record a running cluster\'s watch streams as an NDJSON corpus (svc record --resource pods --duration 10m --out day.ndjson)',
    run: async (argv, io) => (await import('./record-command.js')).record(argv, io),
  },
  dashboard: {
    summary: 'Serve the web dashboard on 127.0.0.1 (live resource tables, watch inspector), reading with your svcconfig',
    run: async (argv, io) => (await import('./dashboard-command.js')).dashboard(argv, io),
  },
  image: {
    summary: 'Manage the images of the running cluster (svc image import FILE...)',
    run: async (argv, io) => (await import('./image-command.js')).image(argv, io),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(subcommands).map((name) => name.length)) + 2;
  return [
    'Usage: svc <command> [flags]',
    '',
    'svc runs a Kubernetes-compatible control plane.',
    '',
    'Commands:',
    ...Object.entries(subcommands).map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    "Run 'svc <command> --help' for a command's flags.",
  ].join('\n');
}

export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.out(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === 'help') {
    const target = rest[0] === undefined ? undefined : subcommands[rest[0]];
    if (target) return target.run(['--help'], io);
    io.out(usage());
    return EXIT_OK;
  }
  const command = subcommands[name];
  if (!command) {
    io.err(`svc: unknown command ${JSON.stringify(name)}`);
    io.err("Run 'svc --help' for usage.");
    return EXIT_USAGE;
  }
  return command.run(rest, io);
}
