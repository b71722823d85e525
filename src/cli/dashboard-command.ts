import { resolveEnvConfig } from '../client/index.js';
import { DEFAULT_DASHBOARD_PORT, startDashboard } from '../dashboard/index.js';
import { closeOnSignal, EXIT_FAILED, EXIT_OK, reportFlagError, type CommandIO } from './command.js';
import { renderHelp, type CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, FlagError, parseFlags } from './flags.js';

/**
 * `svc dashboard`: the web UI on 127.0.0.1, reading the cluster through a GET-only proxy with the
 * credential of the user's svcconfig (as `kubectl proxy` does), so the page holds no token.
 */
export const dashboardFlags = defineFlags({
  svcconfig: flag.string({ valueName: 'path', meaning: 'The cluster and credential to read with (default: $SVCCONFIG, $KUBECONFIG, ~/.kube/config, in-cluster).' }),
  context: flag.string({ valueName: 'name', meaning: 'The svcconfig context to use instead of the current one.' }),
  port: flag.int({
    default: DEFAULT_DASHBOARD_PORT,
    meaning: 'The port on 127.0.0.1 the dashboard listens on; 0 picks a free one.',
    validate: (port) => (port >= 0 && port <= 65535 ? undefined : 'must be a port number (0-65535)'),
  }),
  'controller-manager': flag.string({
    valueName: 'url',
    meaning:
      "The controller manager's secure port (https://host:port; svc up prints it), for the Controllers view: its /live/controllers stream is read with the svcconfig's credential, its certificate checked against the svcconfig's CA. Empty: the view says no manager is known.",
    validate: (url) => {
      try {
        return new URL(url).protocol === 'https:' ? undefined : 'must be an https:// URL';
      } catch {
        return 'must be an https:// URL';
      }
    },
  }),
});

export const dashboardDoc: CommandDoc = {
  name: 'svc dashboard',
  usage: 'svc dashboard [flags]',
  summary:
    "Serves svc's web dashboard on http://127.0.0.1:<port>/: every resource type from discovery as a live table (the server's Table columns, kept current by watches), namespace and label filters, an object's YAML or JSON with its owner tree and Events, a pod's log followed, a watch inspector (raw events, pause, NDJSON export) and, given --controller-manager, the manager's loops live. The page reads the cluster through the dashboard's own GET-only proxy, which sends the svcconfig's credential: any process on this machine that can reach the port can read what that credential can. docs/dashboard.md.",
  source: 'src/cli/dashboard-command.ts',
};

export async function dashboard(argv: readonly string[], io: CommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseFlags<typeof dashboardFlags>>;
  try {
    parsed = parseFlags(dashboardFlags, argv);
    if (parsed.help) {
      io.out(renderHelp(dashboardDoc, dashboardFlags).trimEnd());
      return EXIT_OK;
    }
    if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
  } catch (error) {
    if (error instanceof FlagError) return reportFlagError(dashboardDoc, error, io);
    throw error;
  }
  const { values } = parsed;
  let server;
  try {
    const config = await resolveEnvConfig({ path: values.svcconfig, context: values.context });
    server = await startDashboard({ connection: config.connection, port: values.port, ...(values.controllerManager ? { controllerManager: new URL(values.controllerManager).origin } : {}) });
  } catch (error) {
    io.err(`${dashboardDoc.name}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILED;
  }
  io.out(`dashboard: ${server.url}`);
  return closeOnSignal(() => server.close(), io);
}
