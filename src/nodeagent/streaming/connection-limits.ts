/**
 * `--streaming-connection-idle-timeout` and the 4-hour ceiling of every streaming connection.
 * Activity only moves a timestamp; one timer re-arms itself for the remaining idle time, so a
 * busy connection costs no timer churn per message.
 */

/** The kubelet's fixed ceiling on one streaming connection. */
export const MAX_STREAMING_CONNECTION_MS = 4 * 60 * 60 * 1000;

export interface ConnectionLimitOptions {
  /** Closes after this long without traffic either way; 0 means never. */
  readonly idleTimeoutMs: number;
  /** Closes this long after opening whatever happens; 0 means never. */
  readonly maxDurationMs: number;
  readonly onExpire: (why: 'idle' | 'maxDuration') => void;
}

export interface ConnectionLimits {
  /** Records traffic. */
  touch(): void;
  stop(): void;
}

export function connectionLimits(options: ConnectionLimitOptions): ConnectionLimits {
  let last = Date.now();
  let idleTimer: NodeJS.Timeout | undefined;
  let maxTimer: NodeJS.Timeout | undefined;
  let done = false;
  const expire = (why: 'idle' | 'maxDuration'): void => {
    if (done) return;
    stop();
    options.onExpire(why);
  };
  const armIdle = (delay: number): void => {
    idleTimer = setTimeout(() => {
      const quiet = Date.now() - last;
      if (quiet >= options.idleTimeoutMs) expire('idle');
      else armIdle(options.idleTimeoutMs - quiet);
    }, delay);
    idleTimer.unref();
  };
  const stop = (): void => {
    done = true;
    clearTimeout(idleTimer);
    clearTimeout(maxTimer);
  };
  if (options.idleTimeoutMs > 0) armIdle(options.idleTimeoutMs);
  if (options.maxDurationMs > 0) {
    maxTimer = setTimeout(() => expire('maxDuration'), options.maxDurationMs);
    maxTimer.unref();
  }
  return {
    touch: () => {
      last = Date.now();
    },
    stop,
  };
}
