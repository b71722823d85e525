import { parseAllDocuments } from 'yaml';
import { badRequest, fieldDuplicate, invalid, type Pod } from '../../api/index.js';
import { podFullName, type ManifestProblem } from './pod-update.js';
import { toStaticPod, type StaticPodOrigin } from './static-pod.js';

/** The pods of one file or response, and what was skipped. */
export interface ParsedManifests {
  /** The file path or URL. */
  readonly origin: string;
  readonly pods: Pod[];
  readonly problems: ManifestProblem[];
}

/**
 * Parses a file or response body: YAML or JSON (JSON is YAML), one or many documents separated
 * by `---`. A document that is a `List` or `PodList` contributes its items. Empty documents are
 * ignored; a document that does not parse, or is not a valid pod, is reported and skipped — the
 * other documents still count.
 */
export function parseManifests(text: string, from: StaticPodOrigin): ParsedManifests {
  const pods: Pod[] = [];
  const problems: ManifestProblem[] = [];
  const report = (document: number, error: ManifestProblem['error']) => problems.push({ source: from.source, origin: from.origin, document, error });
  let index = -1;
  for (const doc of parseAllDocuments(text)) {
    index++;
    if (doc.errors.length > 0) {
      report(index, badRequest(`document ${index} of ${from.origin} does not parse: ${doc.errors[0]!.message}`));
      continue;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    const record = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const isList = record !== undefined && (record['kind'] === 'List' || record['kind'] === 'PodList');
    if (isList && !Array.isArray(record['items'])) {
      report(index, badRequest(`document ${index} of ${from.origin} is a ${String(record['kind'])} without items`));
      continue;
    }
    for (const item of isList ? (record['items'] as unknown[]) : [value]) {
      const result = toStaticPod(item, from);
      if ('error' in result) report(index, result.error);
      else pods.push(result.pod);
    }
  }
  return { origin: from.origin, pods, problems };
}

/**
 * Keeps the first pod of each `namespace/name` (in the order given) and reports the others: two
 * static pods of one name cannot both run, and neither could have a mirror. The problems returned
 * are the name clashes only (each part's own problems were reported when it was parsed).
 */
export function firstOfEachName(source: ManifestProblem['source'], parsed: readonly ParsedManifests[]): { pods: Pod[]; problems: ManifestProblem[] } {
  const seen = new Set<string>();
  const pods: Pod[] = [];
  const problems: ManifestProblem[] = [];
  for (const part of parsed) {
    for (const pod of part.pods) {
      const name = podFullName(pod);
      if (seen.has(name)) {
        problems.push({ source, origin: part.origin, error: invalid('Pod', pod.metadata.name ?? '', [fieldDuplicate('metadata.name', name)]) });
        continue;
      }
      seen.add(name);
      pods.push(pod);
    }
  }
  return { pods, problems };
}
