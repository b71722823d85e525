// The page's access to the cluster: everything goes to the dashboard's own origin, whose
// read-only proxy adds the credential. No token ever lives in the page.

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';

export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly uid?: string;
  readonly labels?: Record<string, string>;
}

export interface KubeObject {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly metadata?: ObjectMeta;
  readonly [field: string]: unknown;
}

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: KubeObject & { readonly code?: number; readonly message?: string };
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string, accept = 'application/json', signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: { accept }, signal: signal ?? null });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // not a Status: the text as it came
    }
    throw new ApiError(response.status, message);
  }
  return JSON.parse(text) as T;
}

/** One watch line as it came (its bytes counted for the inspector) and decoded. */
export interface RawWatchLine {
  readonly text: string;
  readonly bytes: number;
  readonly event: WatchEvent;
  /** When the page read the chunk it came in (`performance.now()`): what it waited in the page is from there. */
  readonly receivedAt: number;
}

/**
 * A chunked watch read through fetch's stream: one JSON document per line. Yields until the
 * server ends the watch (its timeout) or the signal aborts.
 */
export async function* watchLines(path: string, accept: string, signal: AbortSignal): AsyncGenerator<RawWatchLine> {
  const response = await fetch(path, { headers: { accept }, signal });
  if (!response.ok || response.body === null) {
    const text = await response.text();
    throw new ApiError(response.status, text);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  // Lines are cut on the bytes (a newline byte is never inside a UTF-8 character), so each
  // line's size is its byte length, with no re-encoding. A chunk's whole lines are decoded in one
  // call and split as text: at 1,000 events/s a chunk holds dozens of lines, and one decode of
  // them all costs less than one per line.
  let rest: Uint8Array | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const receivedAt = performance.now();
      let bytes = value;
      if (rest !== undefined) {
        bytes = new Uint8Array(rest.length + value.length);
        bytes.set(rest);
        bytes.set(value, rest.length);
        rest = undefined;
      }
      const end = bytes.lastIndexOf(10);
      if (end < 0) {
        rest = bytes;
        continue;
      }
      const texts = decoder.decode(bytes.subarray(0, end)).split('\n');
      let from = 0;
      for (const text of texts) {
        const newline = bytes.indexOf(10, from);
        const size = newline - from + 1;
        from = newline + 1;
        if (size > 1 && text.trim() !== '') yield { text, bytes: size, event: JSON.parse(text) as WatchEvent, receivedAt };
      }
      if (end + 1 < bytes.length) rest = bytes.slice(end + 1);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * List, then watch from the list's resourceVersion, forever: a watch the server ends is opened
 * again from the last version seen; a 410 (history gone) lists again. Each list is handed over
 * whole (`onList`), each event after it one by one.
 */
export async function listAndWatch<L extends { metadata?: { resourceVersion?: string } }>(
  options: {
    readonly path: string;
    readonly query: Record<string, string | undefined>;
    readonly accept: string;
    readonly signal: AbortSignal;
    onList(list: L): void;
    onEvent(line: RawWatchLine): void;
    onState?(state: 'live' | 'relisting' | 'retrying' | 'failed', detail?: string): void;
  },
): Promise<void> {
  const { signal } = options;
  let resourceVersion: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    try {
      if (resourceVersion === undefined) {
        const list = await getJson<L>(withQuery(options.path, options.query), options.accept, signal);
        resourceVersion = list.metadata?.resourceVersion;
        options.onList(list);
      }
      options.onState?.('live');
      const url = withQuery(options.path, { ...options.query, watch: 'true', allowWatchBookmarks: 'true', resourceVersion });
      for await (const line of watchLines(url, options.accept, signal)) {
        failures = 0;
        if (line.event.type === 'ERROR') {
          if (line.event.object.code === 410) {
            resourceVersion = undefined;
            options.onState?.('relisting', line.event.object.message);
            break;
          }
          throw new ApiError(line.event.object.code ?? 500, line.event.object.message ?? 'watch error');
        }
        resourceVersion = versionOf(line.event.object) ?? resourceVersion;
        options.onEvent(line);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.code === 410) resourceVersion = undefined;
      // A request the server refuses as such (a bad selector, no permission) fails the same way
      // again: said once, not retried.
      else if (error instanceof ApiError && error.code >= 400 && error.code < 500 && error.code !== 429) {
        options.onState?.('failed', error.message);
        return;
      }
      failures++;
      options.onState?.('retrying', error instanceof Error ? error.message : String(error));
      await sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)), signal);
    }
  }
}

/** An event's resourceVersion: the object's, or a Table's one row's. */
export function versionOf(object: KubeObject): string | undefined {
  const rows = (object as { rows?: { object?: KubeObject }[] }).rows;
  if (object.kind === 'Table' && rows !== undefined && rows.length > 0) return rows[0]?.object?.metadata?.resourceVersion;
  return object.metadata?.resourceVersion;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
