import type { Writable } from 'node:stream';
import { INITIAL_EVENTS_END_ANNOTATION, type ResourceType } from '../../api/index.js';
import { apiVersionOf } from '../api-object.js';
import type { Frame, FrameEncoder } from './frames.js';

const HEADS = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
} as const;
const TAIL = Buffer.from('}\n');

/**
 * Writes frames as JSON lines. An event is three writes under one cork (head, the version's
 * shared bytes, tail): the object's bytes are never copied per watcher.
 */
export function jsonFrameEncoder(type: ResourceType): FrameEncoder {
  const envelope = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersionOf(type))}`;
  const write = (res: Writable, frame: Frame): boolean => {
    if (frame.type === 'BOOKMARK') {
      const annotations = frame.initialEventsEnd ? `,"annotations":{${JSON.stringify(INITIAL_EVENTS_END_ANNOTATION)}:"true"}` : '';
      return res.write(`{"type":"BOOKMARK","object":{${envelope},"metadata":{"resourceVersion":"${frame.revision}"${annotations}}}}\n`);
    }
    res.cork();
    res.write(HEADS[frame.type]);
    res.write(frame.object.object.json);
    const more = res.write(TAIL);
    process.nextTick(() => res.uncork());
    return more;
  };
  return { write, error: (res, status) => void res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`) };
}
