import { defer, exhaustMap, filter, finalize, from, Observable, timer } from 'rxjs';
import { Agent } from 'undici';
import { badRequest, serviceUnavailable } from '../../api/index.js';
import { firstOfEachName, parseManifests } from './manifests.js';
import type { ManifestProblem, SourceEvent } from './pod-update.js';

export interface UrlSourceOptions {
  /** `--manifest-url`. */
  readonly url: string;
  /** `--manifest-url-header` items, `Name:value`; same-name headers are sent in this order. */
  readonly headers?: readonly string[] | undefined;
  readonly nodeName: string;
  /** `--http-check-frequency`, in ms. */
  readonly checkFrequencyMs: number;
  /** Per-request limit, in ms. Default: the check frequency (a slow server never stacks requests). */
  readonly timeoutMs?: number | undefined;
  readonly onProblem: (problem: ManifestProblem) => void;
}

/**
 * `Name:value` items as undici's flat header list (`[name, value, name, value, …]`), which keeps
 * same-name headers as separate lines in the order given — a header object would merge them.
 */
export function headerList(items: readonly string[]): string[] {
  const flat: string[] = [];
  for (const item of items) {
    const colon = item.indexOf(':');
    if (colon <= 0) throw badRequest(`--manifest-url-header ${JSON.stringify(item)} is not of the form Name:value`);
    flat.push(item.slice(0, colon).trim(), item.slice(colon + 1).trim());
  }
  return flat;
}

/**
 * The URL source: static pods from `--manifest-url`, fetched at once and every `checkFrequencyMs`
 * (a fetch still running when the next is due makes that one skip), as a snapshot after every
 * successful fetch. The body is parsed like a manifest file (YAML or JSON, many documents, Lists).
 *
 * A failed fetch — unreachable, a timeout, a status other than 2xx — is reported and emits
 * nothing: the last good set stays. Until the first success the source is not seen, so the agent
 * does not conclude that pods it runs from this URL are gone. An empty body is an empty set.
 * Problems of a body are reported when the body changes, not on every fetch.
 */
export function urlSource(options: UrlSourceOptions): Observable<SourceEvent> {
  const headers = headerList(options.headers ?? []);
  const timeoutMs = options.timeoutMs ?? options.checkFrequencyMs;
  return defer(() => {
    // Its own keep-alive connection, closed with the source (undici's global one would outlive it).
    const agent = new Agent();
    let lastBody: string | undefined;
    let lastFailure: string | undefined;

    const fetchOnce = async (): Promise<SourceEvent | undefined> => {
      let body: string;
      try {
        const url = new URL(options.url);
        const response = await agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
        body = await response.body.text();
        if (response.statusCode < 200 || response.statusCode > 299) throw new Error(`status ${response.statusCode}`);
      } catch (error) {
        const message = `cannot fetch ${options.url}: ${(error as Error).message}; keeping the last set`;
        // One report per run of failures with the same cause.
        if (message !== lastFailure) options.onProblem({ source: 'http', origin: options.url, error: serviceUnavailable(message) });
        lastFailure = message;
        return undefined;
      }
      lastFailure = undefined;
      const parsed = parseManifests(body, { source: 'http', origin: options.url, nodeName: options.nodeName });
      const { pods, problems } = firstOfEachName('http', [parsed]);
      if (body !== lastBody) for (const problem of [...parsed.problems, ...problems]) options.onProblem(problem);
      lastBody = body;
      return { kind: 'snapshot', source: 'http', pods };
    };

    return timer(0, options.checkFrequencyMs).pipe(
      exhaustMap(() => from(fetchOnce())),
      filter((event): event is SourceEvent => event !== undefined),
      finalize(() => void agent.close()),
    );
  });
}
