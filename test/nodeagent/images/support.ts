/** Helpers of the image tests: small distinct image archives and pods that use them. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isStatusError, type Container, type Pod, type StatusError } from '../../../src/api/index.js';
import type { InvolvedObject } from '../../../src/client/index.js';
import { buildOciArchive } from '../../../src/nodeagent/index.js';

/** Writes an OCI archive of a one-file image named `ref` (its content unique to `ref`) into `dir`; returns the path. */
export function writeTinyImage(dir: string, ref: string, fileName = `${ref.replace(/[/:@]/g, '_')}.oci.tar`): { path: string; configDigest: string } {
  const built = buildOciArchive({ ref, files: [{ type: 'file', path: 'hello.txt', data: Buffer.from(`image ${ref}\n`) }], config: { cmd: ['/hello.txt'] } });
  const path = join(dir, fileName);
  writeFileSync(path, built.archive);
  return { path, configDigest: built.configDigest };
}

export function podWith(name: string, container: Partial<Container> & { image: string }, uid = `uid-${name}`): { pod: Pod; container: Container } {
  const c: Container = { name: 'main', ...container };
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid }, spec: { containers: [c] } };
  return { pod, container: c };
}

export interface RecordedEvent {
  readonly object: InvolvedObject;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

/** Keeps what an EventRecorder would have written. */
export class EventLog {
  readonly events: RecordedEvent[] = [];
  record(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
  reasons(): string[] {
    return this.events.map((e) => e.reason);
  }
  clear(): void {
    this.events.length = 0;
  }
}

/** The StatusError a promise rejects with (anything else, or a resolution, fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (error) {
    if (isStatusError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
