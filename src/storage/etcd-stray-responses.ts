import { createRequire } from 'node:module';

/**
 * A fix for the etcd3 client (1.1.x), applied once when the etcd backend loads.
 *
 * etcd3 multiplexes every watch of a client over one gRPC stream, and its `handleResponse` throws
 * when a response names a watch id it no longer tracks. That happens when a watch is cancelled by
 * us at the moment etcd cancels it too (a compaction under a watch that replays old revisions):
 * the second cancel response arrives for an id already removed. The throw escapes the stream's
 * `data` handler, and from then on every watch on the client is silently dead — including the
 * API server's watch caches. A response for a watch nobody holds any more is safely dropped.
 */
interface WatchManagerShape {
  watchers: { id: string | null }[];
  handleResponse(this: WatchManagerShape, res: { watch_id: string }): void;
}

const require = createRequire(import.meta.url);
const { WatchManager } = require('etcd3/lib/watch.js') as { WatchManager: { prototype: WatchManagerShape } };
const original = WatchManager.prototype.handleResponse;
if (!(original as { svcStrayFix?: true }).svcStrayFix) {
  const handleResponse = function (this: WatchManagerShape, res: { watch_id: string }): void {
    if (!this.watchers.some((watcher) => watcher.id === res.watch_id)) return;
    original.call(this, res);
  };
  (handleResponse as { svcStrayFix?: true }).svcStrayFix = true;
  WatchManager.prototype.handleResponse = handleResponse;
}
