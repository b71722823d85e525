import type { Client } from '../../client/index.js';
import { X509Certificate } from 'node:crypto';
import { writeCredentials, type CredentialKind } from './credential-files.js';
import { requestCertificate, type CertificateAsk, type IssuedPair } from './request-certificate.js';

/**
 * Keeps one of the agent's certificates fresh, as the kubelet's certificate manager: a new one is
 * asked for at a jittered 70–90 % of the current one's life (from notBefore to notAfter), or at
 * once when there is none; once issued it is stored in the cert dir and handed to `onRotated`
 * (the client's connections, the server's TLS context). A failed ask is retried with back-off
 * (1 s doubling to 5 min), never past the certificate's own expiry unnoticed: the error is told.
 */

export interface CertificateRotatorOptions {
  /** The client new requests are made with (the agent's own identity once it has one). */
  readonly client: () => Client;
  readonly kind: CredentialKind;
  readonly certDir: string;
  readonly ask: Omit<CertificateAsk, 'signal'>;
  /** The pair in use now, if any. */
  readonly current: IssuedPair | undefined;
  readonly onRotated: (pair: IssuedPair) => void;
  readonly onError: (error: Error) => void;
  /** The clock, in ms; and a random number in [0, 1) for the jitter. */
  readonly now?: (() => number) | undefined;
  readonly random?: (() => number) | undefined;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5 * 60_000;
// Timers are bounded: a year-long certificate is looked at again within a day.
const MAX_WAIT_MS = 24 * 3600_000;

/** When to renew a certificate valid from `notBefore` to `notAfter`: 70 % of its life plus up to 20 % jitter. */
export function rotationDeadline(notBefore: number, notAfter: number, random: number): number {
  const life = notAfter - notBefore;
  return notBefore + life * (0.7 + 0.2 * random);
}

export class CertificateRotator {
  #current: IssuedPair | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #abort = new AbortController();
  #backoffMs = MIN_BACKOFF_MS;
  #running: Promise<void> | undefined;

  constructor(private readonly options: CertificateRotatorOptions) {
    this.#current = options.current;
  }

  get current(): IssuedPair | undefined {
    return this.#current;
  }

  start(): void {
    this.#schedule(this.#waitMs());
  }

  async stop(): Promise<void> {
    this.#abort.abort(new Error('the node agent is stopping'));
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  #waitMs(): number {
    if (!this.#current) return 0;
    const now = (this.options.now ?? Date.now)();
    // node's own parser: the validity is all the rotator reads (src/pki would load @peculiar/x509).
    const certificate = new X509Certificate(this.#current.cert);
    const notBefore = Date.parse(certificate.validFrom);
    const notAfter = Date.parse(certificate.validTo);
    return Math.max(0, rotationDeadline(notBefore, notAfter, (this.options.random ?? Math.random)()) - now);
  }

  #schedule(ms: number): void {
    if (this.#abort.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#rotate();
    }, Math.min(ms, MAX_WAIT_MS));
  }

  async #rotate(): Promise<void> {
    try {
      const pair = await requestCertificate(this.options.client(), { ...this.options.ask, signal: this.#abort.signal });
      await writeCredentials(this.options.certDir, this.options.kind, pair);
      this.#current = pair;
      this.#backoffMs = MIN_BACKOFF_MS;
      this.options.onRotated(pair);
      this.#schedule(this.#waitMs());
    } catch (error) {
      if (this.#abort.signal.aborted) return;
      this.options.onError(error as Error);
      this.#schedule(this.#backoffMs);
      this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    }
  }
}
