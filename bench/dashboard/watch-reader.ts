// bench:dashboard's reader on a thread of its own: the pods' Table watch straight from the API
// server, each MODIFIED event's resourceVersion stamped (epoch ms) as it arrives. Beside the
// readers on the bench's main thread (which also runs the dashboard server's proxy) it tells a
// late event from a late main thread. Opens the watch again from the last version when the
// server ends it; on "stop" posts what arrived and how often the watch was opened again.
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';
import { readTableWatch } from './table-watch-events.js';

const { server, token, caData } = workerData as { server: string; token: string; caData?: string };
const port = parentPort!;
const agent = new Agent({ connect: caData === undefined ? {} : { ca: caData }, bodyTimeout: 0 });
const abort = new AbortController();
const arrived: (string | number)[] = [];
let reopened = 0;
port.once('message', () => abort.abort());
port.postMessage({ kind: 'ready' });
let from: string | undefined;
while (!abort.signal.aborted) {
  try {
    const res = await request(`${server}/api/v1/namespaces/bench/pods?watch=true&allowWatchBookmarks=true${from === undefined ? '' : `&resourceVersion=${from}`}`, {
      dispatcher: agent,
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    await readTableWatch(res.body, (type, version, at) => {
      from = version;
      if (type === 'MODIFIED') arrived.push(version, at);
    });
  } catch {
    // aborted at the end, or the watch broke: opened again unless aborted
  }
  if (!abort.signal.aborted) reopened++;
}
port.postMessage({ kind: 'done', arrived, reopened });
await agent.close();
