import type { Writable } from 'node:stream';
import { INITIAL_EVENTS_END_ANNOTATION, type ResourceType } from '../../api/index.js';
import { apiVersionOf } from '../api-object.js';
import { CorkedFrames } from './corked-frames.js';
import type { Frame, FrameEncoder } from './frames.js';
import type { WritePacing } from './write-hold.js';

/** The Content-Type of a watch served as Server-Sent Events. */
export const EVENT_STREAM = 'text/event-stream';

/** Whether an `Accept` header asks for Server-Sent Events (what `EventSource` sends). */
export function acceptsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}

const DATA = Buffer.from('\ndata: ');
const END = Buffer.from('\n\n');

/**
 * Writes frames as Server-Sent Events: one event per watch event, named by its type, its `id`
 * the resourceVersion (so `EventSource` resumes with `Last-Event-ID` exactly where it stopped),
 * its `data` the object as JSON on one line. Bookmarks are `BOOKMARK` events rather than comments
 * because a comment does not move the browser's last event id: a quiet watch that reconnects
 * resumes from its last bookmark, not from an event long gone from the history window.
 *
 * ```
 * event: ADDED
 * id: 1234
 * data: {"kind":"Pod","apiVersion":"v1","metadata":{…},…}
 *
 * ```
 *
 * The object's bytes are the version's shared JSON, written under one cork between a per-event
 * head and tail (never copied per watcher), as the JSON-lines encoder does; a busy stream's events
 * are held and leave together (corked-frames.ts).
 */
export function eventStreamFrameEncoder(type: ResourceType, pacing: WritePacing): FrameEncoder {
  const cork = new CorkedFrames(pacing);
  const envelope = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersionOf(type))}`;
  const write = (out: Writable, frame: Frame): boolean => {
    if (frame.type === 'BOOKMARK') {
      const annotations = frame.initialEventsEnd ? `,"annotations":{${JSON.stringify(INITIAL_EVENTS_END_ANNOTATION)}:"true"}` : '';
      const more = out.write(`event: BOOKMARK\nid: ${frame.revision}\ndata: {${envelope},"metadata":{"resourceVersion":"${frame.revision}"${annotations}}}\n\n`);
      cork.uncork(out);
      return more;
    }
    cork.open(out);
    const head = `event: ${frame.type}\nid: ${frame.revision}`;
    const json = frame.object.object.json;
    out.write(head);
    out.write(DATA);
    out.write(json);
    const more = out.write(END);
    cork.close(out, head.length + DATA.length + json.length + END.length);
    return more;
  };
  return {
    write,
    // No id on the error: the browser keeps the last good one, and the client decides (a 410 means relist).
    error: (out, status) => {
      cork.uncork(out);
      out.write(`event: ERROR\ndata: ${JSON.stringify(status)}\n\n`);
    },
    flush: (out) => cork.uncork(out),
  };
}
