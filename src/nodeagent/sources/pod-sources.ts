import { merge, type Observable } from 'rxjs';
import type { InformerFactory } from '../../client/index.js';
import { apiSource } from './api-source.js';
import { fileSource } from './file-source.js';
import { mergePodSources } from './merge-sources.js';
import type { ManifestProblem, PodSourceName, PodUpdate, SourceEvent } from './pod-update.js';
import type { SourcesReadiness } from './sources-ready.js';
import { urlSource } from './url-source.js';

export interface PodSourcesOptions {
  /** The node's name (`--hostname-override`, else the host name): API pods bound to it, static pods suffixed with it. */
  readonly nodeName: string;
  /** The API server's informers. Absent in standalone mode: static pods only. */
  readonly informers?: InformerFactory | undefined;
  /** `--pod-manifest-path`. */
  readonly podManifestPath?: string | undefined;
  /** `--file-check-frequency`, ms. Default 20 s. */
  readonly fileCheckFrequencyMs?: number | undefined;
  /** Read the manifest path again on fs.watch events too. Default true. */
  readonly watchManifestPath?: boolean | undefined;
  /** `--manifest-url`. */
  readonly manifestUrl?: string | undefined;
  /** `--manifest-url-header` items (`Name:value`). */
  readonly manifestUrlHeaders?: readonly string[] | undefined;
  /** `--http-check-frequency`, ms. Default 20 s. */
  readonly httpCheckFrequencyMs?: number | undefined;
  /** Marked as each source delivers its first complete set; its expected sources must be {@link configuredSources}. */
  readonly readiness?: SourcesReadiness | undefined;
  /** Told about each manifest document, file or fetch skipped. Default: a line on stderr. */
  readonly onProblem?: ((problem: ManifestProblem) => void) | undefined;
}

/** The sources these options turn on, in a fixed order: the set a {@link SourcesReadiness} waits for. */
export function configuredSources(options: Pick<PodSourcesOptions, 'informers' | 'podManifestPath' | 'manifestUrl'>): PodSourceName[] {
  const names: PodSourceName[] = [];
  if (options.podManifestPath) names.push('file');
  if (options.manifestUrl) names.push('http');
  if (options.informers) names.push('api');
  return names;
}

const logProblem = (problem: ManifestProblem): void => {
  const where = problem.document === undefined ? problem.origin : `${problem.origin} (document ${problem.document})`;
  process.stderr.write(`nodeagent: ${problem.source} source skipped ${where}: ${problem.error.message}\n`);
};

/**
 * Every configured pod source merged by pod UID into one stream of {@link PodUpdate}s: the API
 * server's pods for this node (when `informers` is given), the static pods of the manifest path
 * and of the manifest URL. Cold: each subscription reads and watches anew; share it (`share()`)
 * between the pod workers and {@link mirrorPods}. Never errors on bad manifests (they are
 * reported through `onProblem`); errors only if the informer does.
 */
export function podSources(options: PodSourcesOptions): Observable<PodUpdate> {
  const names = configuredSources(options);
  const readiness = options.readiness;
  if (readiness && [...readiness.expected].sort().join() !== [...names].sort().join()) {
    throw new RangeError(`readiness waits for [${readiness.expected.join(', ')}] but the sources are [${names.join(', ')}]`);
  }
  const onProblem = options.onProblem ?? logProblem;
  const sources: Observable<SourceEvent>[] = [];
  if (options.podManifestPath) {
    sources.push(
      fileSource({
        path: options.podManifestPath,
        nodeName: options.nodeName,
        checkFrequencyMs: options.fileCheckFrequencyMs ?? 20_000,
        watch: options.watchManifestPath,
        onProblem,
      }),
    );
  }
  if (options.manifestUrl) {
    sources.push(
      urlSource({
        url: options.manifestUrl,
        headers: options.manifestUrlHeaders,
        nodeName: options.nodeName,
        checkFrequencyMs: options.httpCheckFrequencyMs ?? 20_000,
        onProblem,
      }),
    );
  }
  if (options.informers) sources.push(apiSource({ informers: options.informers, nodeName: options.nodeName }));
  return merge(...sources).pipe(mergePodSources(readiness));
}
