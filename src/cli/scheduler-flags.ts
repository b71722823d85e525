import type { CommandDoc } from './flag-docs.js';
import { flag, type FlagValues } from './flag-spec.js';
import { defineFlags, FlagError } from './flags.js';

const positive = (n: number) => (n > 0 ? undefined : 'must be positive');
const nonNegative = (n: number) => (n >= 0 ? undefined : 'must not be negative');

/** svc-scheduler's options: kube-scheduler's names for what svc-scheduler has. */
export const schedulerFlags = defineFlags({
  svcconfig: flag.string({
    valueName: 'path',
    meaning: 'The svcconfig (kubeconfig) with the API server\'s address and credentials (`<data-dir>/admin.svcconfig` of a `svc up` cluster).',
  }),
  master: flag.string({
    valueName: 'url',
    meaning: 'The API server\'s address; overrides the one in --svcconfig. Without --svcconfig the scheduler connects with no credentials.',
  }),
  'leader-elect': flag.bool({
    default: true,
    meaning: 'Campaign for the Lease named by --leader-elect-resource-namespace/--leader-elect-resource-name before scheduling, so that of several replicas one schedules at a time.',
  }),
  'leader-elect-lease-duration': flag.duration({
    default: 15_000,
    meaning: 'How long the other replicas wait after the leader\'s last renewal before they take the Lease over.',
    validate: positive,
  }),
  'leader-elect-renew-deadline': flag.duration({
    default: 10_000,
    meaning: 'How long the leader keeps trying to renew before it stops scheduling. Shorter than the lease duration.',
    validate: positive,
  }),
  'leader-elect-retry-period': flag.duration({
    default: 2000,
    meaning: 'The wait between attempts to take or renew the Lease. Shorter than the renew deadline.',
    validate: positive,
  }),
  'leader-elect-resource-name': flag.string({ default: 'svc-scheduler', meaning: 'The name of the Lease the replicas share.' }),
  'leader-elect-resource-namespace': flag.string({ default: 'svc-system', meaning: 'The namespace of that Lease.' }),
  'svc-api-qps': flag.float({ default: 50, meaning: 'Sustained API requests per second (bindings, status updates, Events).', validate: positive }),
  'svc-api-burst': flag.int({ default: 100, meaning: 'API requests allowed at once after an idle spell.', validate: positive }),
  'svc-api-connections': flag.int({
    default: 100,
    meaning: "Sockets the scheduler's requests (bindings, status updates, Events) hold to the API server at most: above its 64 bindings in flight, so Events and status writes do not wait behind them; its watches have sockets of their own, one each.",
    validate: positive,
  }),
  'secure-port': flag.int({
    default: 10259,
    meaning: 'The HTTPS port of /healthz and /readyz (a self-signed certificate); 0 serves nothing.',
    validate: (n) => (n >= 0 && n <= 65535 ? undefined : 'must be a port, 0 to 65535'),
  }),
  'bind-address': flag.string({ default: '0.0.0.0', meaning: 'The address --secure-port listens on.' }),
  'percentage-of-nodes-to-score': flag.int({
    default: 0,
    meaning: 'Stop looking for feasible nodes once this share of the nodes (1-100) is found, and score only those. 0: adaptive, 50% minus 1% per 125 nodes, at least 5%; clusters under 100 nodes are always searched whole.',
    validate: (n) => (n >= 0 && n <= 100 ? undefined : 'must be between 0 and 100'),
  }),
  v: flag.int({ short: 'v', default: 0, valueName: 'level', meaning: 'Log verbosity: 0 logs errors and leadership changes, 2 every binding and unschedulable pod.', validate: nonNegative }),
});

export type SchedulerFlags = FlagValues<typeof schedulerFlags>;

export const schedulerDoc: CommandDoc = {
  name: 'svc-scheduler',
  usage: 'svc-scheduler --svcconfig <path> [flags]',
  summary:
    'Binds pending pods (spec.schedulerName svc-scheduler or default-scheduler) to nodes: filters the nodes a pod may run on (taints, readiness, node selector and affinity, resources, host ports), scores them, and posts a Binding. A pod that fits nowhere gets PodScheduled=False with the reasons. Replicas elect a leader on a Lease.',
  source: 'src/cli/scheduler-flags.ts',
};

/** The checks across flags (each flag's own ran while parsing). Throws `FlagError`. */
export function checkSchedulerFlags(flags: SchedulerFlags): void {
  if (flags.svcconfig === undefined && flags.master === undefined) throw new FlagError('one of --svcconfig or --master is required', '--svcconfig');
  if (flags.leaderElectRenewDeadline >= flags.leaderElectLeaseDuration) {
    throw new FlagError('--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration', '--leader-elect-renew-deadline');
  }
  if (flags.leaderElectRetryPeriod >= flags.leaderElectRenewDeadline) {
    throw new FlagError('--leader-elect-retry-period must be shorter than --leader-elect-renew-deadline', '--leader-elect-retry-period');
  }
}
