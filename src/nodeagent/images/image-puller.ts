/**
 * Runs PullImage calls: one at a time when `--serialize-image-pulls` (a FIFO, so a large image
 * does not starve the others), else all at once; each pull first takes a token of the
 * `--registry-qps`/`--registry-burst` bucket. Where the kubelet fails a pull that finds no token
 * ("pull QPS exceeded", then a 10 s back-off), this one waits for the token: the limit then
 * shapes the pulls instead of turning a burst of pods into back-offs.
 */
import { TokenBucket } from '../../../operators/index.js';
import type { CriClient } from '../cri/index.js';
import type * as T from '../cri/index.js';

export interface ImagePullerOptions {
  readonly cri: Pick<CriClient, 'pullImage'>;
  readonly serialize: boolean;
  /** Pulls per second; 0 or less means unlimited. */
  readonly qps: number;
  /** Pulls at once after an idle spell (at least 1); only counts when qps > 0. */
  readonly burst: number;
  /** The bucket's clock and wait; default `Date.now` and a timer. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const timerSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ImagePuller {
  readonly #cri: Pick<CriClient, 'pullImage'>;
  readonly #serialize: boolean;
  readonly #bucket: TokenBucket | undefined;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: ImagePullerOptions) {
    this.#cri = options.cri;
    this.#serialize = options.serialize;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? timerSleep;
    this.#bucket = options.qps > 0 ? new TokenBucket({ qps: options.qps, burst: Math.max(1, Math.floor(options.burst)) }) : undefined;
  }

  /** Pulls `image`, trying each credential in turn (none: one anonymous pull); resolves to the runtime's image ref. */
  pull(image: T.Input<T.ImageSpec>, auths: readonly T.AuthConfig[]): Promise<string> {
    const run = (): Promise<string> => this.#pullNow(image, auths);
    if (!this.#serialize) return run();
    const result = this.#tail.then(run, run);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  async #pullNow(image: T.Input<T.ImageSpec>, auths: readonly T.AuthConfig[]): Promise<string> {
    const wait = this.#bucket?.reserve(this.#now()) ?? 0;
    if (wait > 0) await this.#sleep(wait);
    if (auths.length === 0) return (await this.#cri.pullImage({ image })).imageRef;
    let lastError: unknown;
    for (const auth of auths) {
      try {
        return (await this.#cri.pullImage({ image, auth })).imageRef;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
}
