import { watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { debounceTime, defer, EMPTY, from, merge, Observable, switchMap, timer } from 'rxjs';
import { badRequest } from '../../api/index.js';
import { firstOfEachName, parseManifests, type ParsedManifests } from './manifests.js';
import type { ManifestProblem, SourceEvent } from './pod-update.js';

export interface FileSourceOptions {
  /** `--pod-manifest-path`: a directory of manifests, or one manifest file. */
  readonly path: string;
  readonly nodeName: string;
  /** `--file-check-frequency`, in ms: the path is read again this often. */
  readonly checkFrequencyMs: number;
  /**
   * Also read the path again shortly after the file system reports a change in it (fs.watch,
   * debounced by `watchDebounceMs`, default 100). Default true. The periodic read stays: watches
   * miss things (a directory created later, network file systems).
   */
  readonly watch?: boolean | undefined;
  readonly watchDebounceMs?: number | undefined;
  /** Told about every document or file skipped; each is reported once per content of its file. */
  readonly onProblem: (problem: ManifestProblem) => void;
}

/** Change notifications for `path` (a directory, or one file: then its directory, filtered to it). */
function changes(path: string, isDirectory: boolean): Observable<void> {
  return new Observable<void>((subscriber) => {
    const dir = isDirectory ? path : dirname(path);
    const only = isDirectory ? undefined : basename(path);
    try {
      const watcher = watch(dir, { persistent: false }, (_event, file) => {
        if (only === undefined || file === null || file === only) subscriber.next();
      });
      // A watch that breaks (the directory removed) leaves the periodic read in charge.
      watcher.on('error', () => subscriber.complete());
      return () => watcher.close();
    } catch {
      subscriber.complete();
      return undefined;
    }
  });
}

const isNotFound = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/**
 * The file source: static pods from `--pod-manifest-path`, as a snapshot (the complete set) after
 * every read — at once, every `checkFrequencyMs`, and after file system changes. In a directory,
 * files whose names begin with a dot and subdirectories are ignored, and files are read in name
 * order (the first of two pods with one name wins). A path that does not exist is an empty set.
 *
 * A file is parsed again only when its text changed, so its problems are reported once and an
 * unchanged file costs one read. A file that exists but cannot be read (permissions, I/O) keeps
 * the pods it had: a transient error must not stop running pods.
 */
export function fileSource(options: FileSourceOptions): Observable<SourceEvent> {
  return defer(() => {
    const known = new Map<string, { text: string; parsed: ParsedManifests }>();
    const origin = { source: 'file' as const, nodeName: options.nodeName };
    let reportedClashes = new Set<string>();

    const readFileManifests = async (file: string): Promise<ParsedManifests | undefined> => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if (isNotFound(error)) return undefined; // removed between readdir and read
        const previous = known.get(file);
        options.onProblem({ source: 'file', origin: file, error: badRequest(`cannot read ${file}: ${(error as Error).message}`) });
        return previous?.parsed;
      }
      const previous = known.get(file);
      if (previous?.text === text) return previous.parsed;
      const parsed = parseManifests(text, { ...origin, origin: file });
      for (const problem of parsed.problems) options.onProblem(problem);
      known.set(file, { text, parsed });
      return parsed;
    };

    const listFiles = async (): Promise<string[]> => {
      let info;
      try {
        info = await stat(options.path);
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
      if (!info.isDirectory()) return [options.path];
      let entries: string[];
      try {
        entries = await readdir(options.path);
      } catch (error) {
        // Removed between the stat and the read: as missing as if the stat had said so.
        if (isNotFound(error)) return [];
        throw error;
      }
      const names = entries.filter((name) => !name.startsWith('.')).sort();
      const files: string[] = [];
      for (const name of names) {
        const file = join(options.path, name);
        const entry = await stat(file).catch(() => undefined); // follows symlinks, as editors and config tools use them
        if (entry?.isFile()) files.push(file);
      }
      return files;
    };

    const read = async (): Promise<SourceEvent> => {
      let files: string[];
      try {
        files = await listFiles();
      } catch (error) {
        // The path itself is unreadable: keep every pod we had.
        options.onProblem({ source: 'file', origin: options.path, error: badRequest(`cannot read ${options.path}: ${(error as Error).message}`) });
        files = [...known.keys()];
      }
      const parsed: ParsedManifests[] = [];
      for (const file of files) {
        const manifests = await readFileManifests(file);
        if (manifests) parsed.push(manifests);
      }
      for (const file of known.keys()) if (!files.includes(file)) known.delete(file);
      const { pods, problems } = firstOfEachName('file', parsed);
      // Name clashes are found anew on every read: report each one once while it lasts.
      const clashes = new Map(problems.map((problem) => [`${problem.origin}|${problem.error.message}`, problem]));
      for (const [key, problem] of clashes) if (!reportedClashes.has(key)) options.onProblem(problem);
      reportedClashes = new Set(clashes.keys());
      return { kind: 'snapshot', source: 'file', pods };
    };

    const watching =
      options.watch === false
        ? EMPTY
        : from(stat(options.path).catch(() => undefined)).pipe(
            switchMap((info) => (info ? changes(options.path, info.isDirectory()) : EMPTY)),
            debounceTime(options.watchDebounceMs ?? 100),
          );
    return merge(timer(0, options.checkFrequencyMs), watching).pipe(
      // Reads are idempotent: a newer trigger supersedes a read in flight.
      switchMap(() => from(read())),
    );
  });
}
