// One reading of a pods Table watch's JSON lines, shared by bench:dashboard's Node readers (the
// main thread's, browser.ts, and the worker's, watch-reader.ts): each event's resourceVersion (a
// Table event's row's, or the object's) with the time its chunk arrived (epoch ms).

type TableWatchEvent = { type: string; object: { metadata?: { resourceVersion?: string }; rows?: { object?: { metadata?: { resourceVersion?: string } } }[] } };

/** Reads `body` to its end, calling `onEvent(type, version, at)` per event that names a version. */
export async function readTableWatch(body: AsyncIterable<unknown>, onEvent: (type: string, version: string, at: number) => void): Promise<void> {
  let buffered = '';
  for await (const chunk of body) {
    const at = Date.now();
    buffered += (chunk as Buffer).toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffered.slice(0, newline)) as TableWatchEvent;
      buffered = buffered.slice(newline + 1);
      const version = event.object.rows?.[0]?.object?.metadata?.resourceVersion ?? event.object.metadata?.resourceVersion;
      if (version !== undefined) onEvent(event.type, version, at);
    }
  }
}
