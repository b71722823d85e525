import type { Observable, Subscription } from 'rxjs';
import type { ManifestProblem } from '../../../src/nodeagent/index.js';
import { WAIT_MS } from '../../support/wait.js';

/** Collects what an observable emits, and the problems reported, until stopped. */
export class Recorder<T> {
  readonly values: T[] = [];
  readonly problems: ManifestProblem[] = [];
  error: unknown;
  #subscription: Subscription | undefined;

  readonly onProblem = (problem: ManifestProblem): void => {
    this.problems.push(problem);
  };

  start(source: Observable<T>): this {
    this.#subscription = source.subscribe({ next: (value) => this.values.push(value), error: (error: unknown) => (this.error = error) });
    return this;
  }

  stop(): void {
    this.#subscription?.unsubscribe();
  }
}

/** Resolves when `predicate` holds (checked every 10 ms); fails naming `what` after a generous guard. */
export async function until(predicate: () => boolean, what: string, guardMs = WAIT_MS): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > guardMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const podYaml = (name: string, image = 'svc.local/busybox:latest', extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
${extra}spec:
  containers:
  - name: main
    image: ${image}
`;
