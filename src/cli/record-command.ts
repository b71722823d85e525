import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { Subscription, filter, first } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import { Client, discoverResources, Informer, type ApiResource, type InformerEvent } from '../client/index.js';
import type { EventLine } from '../testing/index.js';
import { EXIT_FAILED, EXIT_OK, reportFlagError, type CommandIO } from './command.js';
import { renderHelp, type CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, FlagError, parseFlags } from './flags.js';

/**
 * `svc record`: a running cluster's watches, recorded for a while as the NDJSON corpus svc/bench
 * (`recordedEvents`) and the test kit replay: per resource, one SYNCED line with the state when
 * its cache filled, then each event with `at` (ms since the recording began). Lines are written
 * as they happen, so a long recording holds nothing in memory but the caches.
 */
export const recordFlags = defineFlags({
  svcconfig: flag.string({ valueName: 'path', meaning: 'The cluster to record (default: $SVCCONFIG, $KUBECONFIG, ~/.kube/config, in-cluster).' }),
  resource: flag.stringArray({ valueName: 'resource[.group]', meaning: 'A resource to record, by its plural name and group (pods, deployments.apps); repeatable. Default: pods.' }),
  namespace: flag.string({ valueName: 'name', meaning: 'Record one namespace (default: all).' }),
  selector: flag.string({ valueName: 'labels', meaning: 'A label selector the recorded objects must match.' }),
  duration: flag.duration({ default: 10 * 60_000, meaning: 'How long to record after every cache has filled.', validate: (ms) => (ms > 0 ? undefined : 'must be positive') }),
  out: flag.string({ default: '-', valueName: 'file', meaning: 'Where the NDJSON goes (- for stdout).' }),
});

export const recordDoc: CommandDoc = {
  name: 'svc record',
  usage: 'svc record [flags]',
  summary:
    'Records the watch streams of a running cluster for --duration into an NDJSON corpus (per resource a SYNCED line with its state, then each ADDED, MODIFIED and DELETED with its time), the input svc/bench replays into a benchmark (recordedEvents) and the test kit plays back. docs/benchmarking.md.',
  source: 'src/cli/record-command.ts',
};

/**
 * `svc record`. `options.signal` ends the recording early, as the duration's end would (a script
 * recording while it drives a workload stops when the workload is done).
 */
export async function record(argv: readonly string[], io: CommandIO, options: { signal?: AbortSignal } = {}): Promise<number> {
  let parsed: ReturnType<typeof parseFlags<typeof recordFlags>>;
  try {
    parsed = parseFlags(recordFlags, argv);
    if (parsed.help) {
      io.out(renderHelp(recordDoc, recordFlags).trimEnd());
      return EXIT_OK;
    }
    if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
  } catch (error) {
    if (error instanceof FlagError) return reportFlagError(recordDoc, error, io);
    throw error;
  }
  const { values } = parsed;
  const client = values.svcconfig !== undefined ? await Client.fromSvcconfig(values.svcconfig, { userAgent: 'svc-record' }) : await Client.fromEnv({ userAgent: 'svc-record' });
  try {
    const { resources } = await discoverResources(client);
    const wanted = values.resource.length > 0 ? values.resource : ['pods'];
    const chosen: ApiResource[] = [];
    for (const name of wanted) {
      const dot = name.indexOf('.');
      const [resource, group] = dot < 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot + 1)];
      const found = resources.find((r) => r.resource === resource && r.group === group && r.verbs.includes('watch'));
      if (!found) {
        io.err(`${recordDoc.name}: the server serves no watchable resource ${JSON.stringify(name)}`);
        return EXIT_FAILED;
      }
      chosen.push(found);
    }
    const out: Writable = values.out === '-' ? process.stdout : createWriteStream(values.out);
    const start = performance.now();
    const at = () => Math.round((performance.now() - start) * 1000) / 1000;
    const write = (line: EventLine) => out.write(`${JSON.stringify(line)}\n`);
    const subscriptions = new Subscription();
    const informers: Informer<KubeObject>[] = [];
    const TYPES = { added: 'ADDED', updated: 'MODIFIED', deleted: 'DELETED', resync: 'RESYNC' } as const;
    const synced: Promise<void>[] = [];
    for (const resource of chosen) {
      const source = resource.group === '' ? resource.resource : `${resource.resource}.${resource.group}`;
      const informer = new Informer<KubeObject>(client, resource, {
        decode: 'eager',
        ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
        ...(values.selector !== undefined ? { labelSelector: values.selector } : {}),
      });
      informers.push(informer);
      let live = false;
      // The state at sync is one SYNCED line; the initial list's own ADDED events (which the
      // informer may hand on just after it reports synced) are not repeated.
      let snapshot = new Set<string>();
      const version = (object: KubeObject) => `${object.metadata.uid ?? ''}@${object.metadata.resourceVersion ?? ''}`;
      synced.push(
        new Promise<void>((resolve) =>
          subscriptions.add(
            informer.synced$.pipe(filter(Boolean), first()).subscribe(() => {
              const objects = informer.store.list();
              snapshot = new Set(objects.map(version));
              write({ at: at(), source, type: 'SYNCED', objects });
              live = true;
              resolve();
            }),
          ),
        ),
      );
      subscriptions.add(
        informer.events$.subscribe((event: InformerEvent<KubeObject>) => {
          if (!live || event.type === 'resync') return;
          if (event.type === 'added' && snapshot.delete(version(event.object))) return;
          write({ at: at(), source, type: TYPES[event.type], object: event.object, ...(event.type === 'deleted' && event.finalStateUnknown ? { finalStateUnknown: true } : {}) });
        }),
      );
    }
    await Promise.all(synced);
    io.err(`${recordDoc.name}: recording ${chosen.length} resource(s) for ${values.duration / 1000} s`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, values.duration);
      options.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    subscriptions.unsubscribe();
    for (const informer of informers) informer.stop();
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
    return EXIT_OK;
  } finally {
    await client.destroy();
  }
}
