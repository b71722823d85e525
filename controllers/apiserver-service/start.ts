import { Subject } from 'rxjs';
import { InformerFactory } from '../../src/client/index.js';
import { kubernetesService, withdrawApiServer, type KubernetesServiceOptions } from './kubernetes-service.js';

export type StartKubernetesServiceOptions = Omit<KubernetesServiceOptions, 'informers' | 'stop$'> & {
  /** Reconcile failures (retried with back-off): the API server logs them. */
  readonly onError?: (error: unknown) => void;
};

export interface RunningKubernetesService {
  /** Stops the loop, then withdraws this server (its Lease deleted, its address out of the endpoints). */
  stop(): Promise<void>;
}

/** Runs the `kubernetes` Service loop on informers of its own, as the API server process does. */
export function startKubernetesService(options: StartKubernetesServiceOptions): RunningKubernetesService {
  const informers = new InformerFactory(options.client);
  const stop$ = new Subject<void>();
  const done = new Promise<void>((resolve) => {
    kubernetesService({ ...options, informers, stop$ }).subscribe({
      next: (result) => {
        if ((result.type === 'retry' || result.type === 'terminal') && options.onError) options.onError(result.error);
      },
      error: (error: unknown) => {
        options.onError?.(error);
        resolve();
      },
      complete: resolve,
    });
  });
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        stop$.next();
        await done;
        informers.stop();
        await withdrawApiServer(options.client, options.identity, options.advertiseAddress, options.securePort).catch((error: unknown) => options.onError?.(error));
      })()),
  };
}
