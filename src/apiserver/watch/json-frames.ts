import type { Writable } from 'node:stream';
import { INITIAL_EVENTS_END_ANNOTATION, type ResourceType } from '../../api/index.js';
import { apiVersionOf } from '../api-object.js';
import { CorkedFrames } from './corked-frames.js';
import type { Frame, FrameEncoder } from './frames.js';
import type { WritePacing } from './write-hold.js';

const HEADS = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
} as const;
const TAIL = Buffer.from('}\n');

/**
 * Writes frames as JSON lines. An event is three writes under one cork (head, the version's
 * shared bytes, tail): the object's bytes are never copied per watcher. The cork lasts the tick,
 * or for a busy watch the hold (corked-frames.ts).
 */
export function jsonFrameEncoder(type: ResourceType, pacing: WritePacing): FrameEncoder {
  const cork = new CorkedFrames(pacing);
  const envelope = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersionOf(type))}`;
  const write = (res: Writable, frame: Frame): boolean => {
    if (frame.type === 'BOOKMARK') {
      const annotations = frame.initialEventsEnd ? `,"annotations":{${JSON.stringify(INITIAL_EVENTS_END_ANNOTATION)}:"true"}` : '';
      // Not held: it leaves now, with what was held before it.
      const more = res.write(`{"type":"BOOKMARK","object":{${envelope},"metadata":{"resourceVersion":"${frame.revision}"${annotations}}}}\n`);
      cork.uncork(res);
      return more;
    }
    cork.open(res);
    const head = HEADS[frame.type];
    const json = frame.object.object.json;
    res.write(head);
    res.write(json);
    const more = res.write(TAIL);
    cork.close(res, head.length + json.length + TAIL.length);
    return more;
  };
  return {
    write,
    error: (res, status) => {
      cork.uncork(res);
      res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    },
    flush: (res) => cork.uncork(res),
  };
}
