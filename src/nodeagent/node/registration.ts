import { asyncScheduler, defer, retry, timer, type Observable, type SchedulerLike } from 'rxjs';
import { isStatusError, type Node } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';
import { reconcilePatch } from './node-object.js';

export interface RegistrationOptions {
  readonly client: Client;
  /** The Node as the agent would create it (newNode). */
  readonly wanted: Node;
  /** `--register-node`: false only waits for someone else to create the Node. */
  readonly register: boolean;
  readonly scheduler?: SchedulerLike;
  /** Called with each failed attempt before it is retried. */
  readonly onError?: (error: unknown) => void;
  /** Called once the Node is created (not when it existed). */
  readonly onCreated?: (node: Node) => void;
}

/**
 * Creates the Node, or reconciles the one that exists (reconcilePatch: the agent's labels, its
 * taints if missing, providerID), and emits it once. With `register` false it only reads the Node
 * until it exists. Any failure is retried with back-off, 100 ms doubling to 7 s, as the kubelet
 * retries its registration, until it succeeds or the subscriber leaves.
 */
export function registration(options: RegistrationOptions): Observable<Node> {
  const { client, wanted } = options;
  const name = wanted.metadata.name!;
  const attempt = async (): Promise<Node> => {
    if (!options.register) return await client.get(builtin.nodes, name);
    try {
      const created = await client.create(builtin.nodes, wanted);
      options.onCreated?.(created);
      return created;
    } catch (error) {
      if (!isStatusError(error, 'AlreadyExists')) throw error;
    }
    const existing = await client.get(builtin.nodes, name);
    const patch = reconcilePatch(existing, wanted);
    return patch === undefined ? existing : await client.patch(builtin.nodes, name, patch, { type: 'merge' });
  };
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(attempt).pipe(
    retry({
      delay: (error, count) => {
        options.onError?.(error);
        return timer(Math.min(100 * 2 ** (count - 1), 7_000), scheduler);
      },
    }),
  );
}
