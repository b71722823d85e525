/**
 * The agent's log with klog's verbosity rules: `-v` is the level for every file, and `--vmodule`
 * raises it for the files whose name matches a pattern. A message at level N is written when
 * N <= max(-v, the file's --vmodule level); --vmodule never lowers a file below -v (klog checks
 * -v first). A file is named as its path under `src/` without `.ts`
 * (`nodeagent/eviction/eviction-manager`): a pattern without `/` is matched against the base name
 * (`eviction-manager`, `eviction-*`), one with `/` against the whole path; `*` matches any run of
 * characters but `/`, `?` one character, as Go's filepath.Match. The first matching pattern wins,
 * as in klog. Lines are klog's text header: `I1127 07:12:24.123456 4242 eviction-manager] text`.
 */

export interface AgentLogOptions {
  /** `-v`. */
  readonly verbosity: number;
  /** `--vmodule`: pattern → level, in the order given. */
  readonly vmodule?: Readonly<Record<string, number>> | undefined;
  /** Where each line goes (stderr for the daemon). */
  readonly write: (line: string) => void;
  /** The clock of the header; default `Date.now`. */
  readonly now?: () => number;
}

/** One file's log: `v(n)` says whether level-n lines of this file are written. */
export interface FileLog {
  readonly file: string;
  v(level: number): boolean;
  /** A message at `level` (0 is always written). */
  info(level: number, message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The loggers of every file, sharing one verbosity configuration. */
export interface AgentLog {
  forFile(file: string): FileLog;
}

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The --vmodule level of `file`, or undefined when no pattern names it. */
export function vmoduleLevel(vmodule: Readonly<Record<string, number>>, file: string): number | undefined {
  const base = file.slice(file.lastIndexOf('/') + 1);
  for (const [pattern, level] of Object.entries(vmodule)) {
    if (globToRegExp(pattern).test(pattern.includes('/') ? file : base)) return level;
  }
  return undefined;
}

function header(letter: string, ms: number, file: string): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${letter}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds() * 1000, 6)} ${process.pid} ${file.slice(file.lastIndexOf('/') + 1)}]`;
}

export function agentLog(options: AgentLogOptions): AgentLog {
  const vmodule = options.vmodule ?? {};
  const now = options.now ?? Date.now;
  // Each file's level is computed once, as klog caches it per call site.
  const files = new Map<string, FileLog>();
  return {
    forFile(file) {
      const known = files.get(file);
      if (known) return known;
      const level = Math.max(options.verbosity, vmoduleLevel(vmodule, file) ?? 0);
      const line = (letter: string, message: string) => options.write(`${header(letter, now(), file)} ${message}`);
      const log: FileLog = {
        file,
        v: (n) => n <= level,
        info: (n, message) => {
          if (n <= level) line('I', message);
        },
        warn: (message) => line('W', message),
        error: (message) => line('E', message),
      };
      files.set(file, log);
      return log;
    },
  };
}
