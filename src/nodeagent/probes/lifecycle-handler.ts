import { StatusError, type StatusReason } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { lifecycleHandlerSchema, type LifecycleHandler } from './actions.js';
import { runExecAction } from './exec-action.js';
import { runHttpGetAction } from './http-get-action.js';
import { podName, type ActionOutcome, type ProbeTarget } from './target.js';

export type LifecycleHook = 'postStart' | 'preStop';

export interface LifecycleHandlerOptions {
  readonly cri: CriClient;
  /** The most the handler may take (for preStop, what is left of the grace period). */
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal | undefined;
  /** Which hook runs: it names the failure (`FailedPostStartHook` / `FailedPreStopHook`). */
  readonly hook?: LifecycleHook | undefined;
  /** Where notices go (a deprecated tcpSocket handler); default `process.emitWarning`. */
  readonly warn?: ((message: string) => void) | undefined;
}

const FAILURE_REASON: Record<LifecycleHook, StatusReason> = { postStart: 'FailedPostStartHook', preStop: 'FailedPreStopHook' };
const TITLE: Record<LifecycleHook, string> = { postStart: 'PostStartHook', preStop: 'PreStopHook' };

/**
 * Runs a postStart or preStop handler in or against the container: exec (exit code 0), httpGet
 * (status 200–399, as probes), sleep (the given seconds, ended early by the timeout or the signal
 * without failing: running out of grace is not the handler's fault), tcpSocket (deprecated in
 * hooks: a no-op with a warning, as the kubelet). Any failure — a non-zero exit, a bad status, an
 * unreachable server, the timeout, a malformed handler — throws a StatusError whose reason is
 * `FailedPostStartHook` / `FailedPreStopHook` (by `hook`) and whose message names the hook, the
 * handler, the container and why.
 */
export async function runLifecycleHandler(
  // Also the loose object the Pod schema holds: the handler is parsed here either way.
  handler: LifecycleHandler | Readonly<Record<string, unknown>>,
  target: ProbeTarget,
  options: LifecycleHandlerOptions,
): Promise<void> {
  const hook = options.hook;
  const fail = (what: string, why: string, cause?: unknown): StatusError =>
    new StatusError({
      reason: hook ? FAILURE_REASON[hook] : 'InternalError',
      message: `${hook ? TITLE[hook] : 'Lifecycle hook'} ${what} for container "${target.container.name}" in pod "${podName(target.pod)}" failed: ${why}`,
      ...(cause === undefined ? {} : { cause }),
    });
  const parsed = lifecycleHandlerSchema.safeParse(handler);
  if (!parsed.success) throw fail('handler', `invalid handler: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  const { exec, httpGet, tcpSocket, sleep } = parsed.data;
  const timeoutMs = Math.max(0, options.timeoutSeconds) * 1000;
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);

  if (sleep) return sleepFor(Math.min(sleep.seconds * 1000, timeoutMs), options.signal);
  if (tcpSocket) {
    (options.warn ?? ((message: string) => process.emitWarning(message)))(
      `container "${target.container.name}" in pod "${podName(target.pod)}": a tcpSocket lifecycle handler is deprecated and does nothing`,
    );
    return;
  }
  const action = exec
    ? { what: `exec ${JSON.stringify(exec.command ?? [])}`, run: () => runExecAction(exec, target.containerId, { cri: options.cri, timeoutSeconds: options.timeoutSeconds, signal }) }
    : httpGet
      ? { what: `httpGet ${httpGet.path ?? '/'}`, run: () => runHttpGetAction(httpGet, target.container, target.podIP, { signal }) }
      : undefined;
  if (!action) throw fail('handler', 'the handler names no action (exec, httpGet, sleep)');
  const { what } = action;
  let outcome: ActionOutcome;
  try {
    outcome = await withTimeout(action.run(), signal);
  } catch (error) {
    const why = signal.aborted && !options.signal?.aborted ? `timed out after ${options.timeoutSeconds}s` : error instanceof Error ? error.message : String(error);
    throw fail(what, why, error);
  }
  if (outcome.result === 'failure') throw fail(what, outcome.message);
}

/** Resolves at the action's end or rejects when the signal fires, whichever is first. */
function withTimeout<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function sleepFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
