// Child process of bench/controllers/namespace.ts, manager-scale.ts and others: a real svc-apiserver
// over HTTPS on the embedded store (sqlite in the data dir given as argv[2]; argv[3] may name another
// --storage, e.g. memory). Prints `{"svcconfig": <path>}` once it listens; exits on the IPC message "stop".
// "census-start" / "census-stop" count the async resources it creates between them (bench/support/async-census.ts),
// answered as `{ census }`; "gc-start" / "gc-stop" the main thread's collection pauses between them
// (bench/support/gc-pauses.ts), answered as `{ gc }`; "alloc-start" / "alloc-stop" where it allocates
// between them (bench/support/allocation-sampling.ts), answered as `{ alloc }`.
// "counts" answers `{ counts }`: the store's reads, writes and lists per resource since the last
// "counts" (how many of a write's reads the server's cache of its written objects saved).
// With PROFILE_SERVER=<file>.cpuprofile it profiles itself between "profile-start" and
// "profile-stop", writes the profile and answers `{ profile: split }` (bench/support/profile-split.ts).
// `{ podUpdates: PodUpdateJob }` (manager-scale.ts, VIA=store) sets each pod's SENT_ANNOTATION by a
// compare-and-swap on its stored JSON in this process: the same store → watch cache → watch event
// a PATCH makes, without the HTTP write path's cost (request, admission, validation), which one
// process cannot run 1,000 times a second on this machine; answers `{ podUpdates: PodUpdateResult }`.
import { startApiServer } from '../../src/cli/apiserver-command.js';
import { writeFileSync } from 'node:fs';
import { splitProfile } from '../support/profile-split.js';
import { startProfile } from '../support/self-profile.js';
import { startAsyncCensus } from '../support/async-census.js';
import { startGcPauses } from '../support/gc-pauses.js';
import { startAllocationSampling } from '../support/allocation-sampling.js';
import { pacedUpdates, SENT_ANNOTATION, sentNow, type PodUpdateJob } from './paced-load.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: server.ts <data-dir>');
// APISERVER_ARGS: more svc-apiserver flags, e.g. `--watch-write-interval=10ms`.
const extraArgs = (process.env['APISERVER_ARGS'] ?? '').split(' ').filter(Boolean);
const server = await startApiServer([`--storage=${process.argv[3] ?? 'sqlite'}`, '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`, ...extraArgs]);

// The store's calls counted per operation and resource (the key's segment after the group).
const counts = new Map<string, number>();
const resourceOf = (key: string): string => key.slice(server.store.prefix.length).split('/')[1] ?? key;
const store = server.store as unknown as Record<'get' | 'update' | 'create' | 'list', (key: string, ...rest: unknown[]) => unknown>;
for (const op of ['get', 'update', 'create', 'list'] as const) {
  const original = store[op].bind(server.store);
  store[op] = (key: string, ...rest: unknown[]) => {
    const name = `${op} ${resourceOf(key)}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return original(key, ...rest);
  };
}
const PROFILE_SERVER = process.env['PROFILE_SERVER'];
let stopProfile: ReturnType<typeof startProfile> | undefined;
let stopCensus: ReturnType<typeof startAsyncCensus> | undefined;
let stopGc: ReturnType<typeof startGcPauses> | undefined;
let stopAlloc: ReturnType<typeof startAllocationSampling> | undefined;

/** One pod's annotation set to now, straight in the store (again on a conflict with another writer). */
async function stamp(namespace: string, pod: string): Promise<void> {
  const key = `${server.store.prefix}core/pods/${namespace}/${pod}`;
  for (;;) {
    const stored = await server.store.get(key);
    if (stored === undefined) throw new Error(`${key} is not stored`);
    const object = JSON.parse(Buffer.from(stored.value).toString('utf8')) as { metadata: { annotations?: Record<string, string> } };
    object.metadata.annotations = { ...object.metadata.annotations, [SENT_ANNOTATION]: sentNow() };
    try {
      await server.store.update(key, Buffer.from(JSON.stringify(object)), stored.modRevision);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'Conflict') throw error;
    }
  }
}

process.on('message', async (message) => {
  if (message === 'stop') {
    await server.close();
    process.exit(0);
  }
  if (message === 'counts') {
    process.send!({ counts: Object.fromEntries(counts) });
    counts.clear();
  }
  if (message === 'alloc-start') stopAlloc = startAllocationSampling();
  if (message === 'alloc-stop') {
    const started = stopAlloc;
    stopAlloc = undefined;
    return process.send!({ alloc: started === undefined ? null : await (await started)() });
  }
  if (message === 'gc-start') stopGc = startGcPauses();
  if (message === 'gc-stop') {
    const gc = stopGc?.();
    stopGc = undefined;
    return process.send!({ gc: gc ?? null });
  }
  if (message === 'census-start') stopCensus = startAsyncCensus();
  if (message === 'census-stop') {
    const census = stopCensus?.();
    stopCensus = undefined;
    return process.send!({ census: census ?? null });
  }
  if (message === 'profile-start' && PROFILE_SERVER !== undefined) stopProfile = startProfile();
  if (message === 'profile-stop') {
    const started = stopProfile;
    stopProfile = undefined;
    if (started === undefined || PROFILE_SERVER === undefined) return process.send!({ profile: null });
    const profile = await (await started)();
    writeFileSync(PROFILE_SERVER, JSON.stringify(profile));
    return process.send!({ profile: splitProfile(profile) });
  }
  const job = (message as { podUpdates?: PodUpdateJob }).podUpdates;
  if (job !== undefined) process.send!({ podUpdates: await pacedUpdates(job, (pod) => stamp(job.namespace, pod), 256) });
});
process.stdout.write(`${JSON.stringify({ svcconfig: server.svcconfigPath })}\n`);
