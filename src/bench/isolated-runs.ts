import { fork } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBenchFile } from './bench-file.js';
import type { BenchResult } from './operator-bench.js';
import { runRounds, type RunReport } from './runs.js';

/** A benchmark a file exports, by its place in the file's list. */
interface FileBench {
  readonly file: string;
  readonly index: number;
  readonly name: string;
}

// The child entry beside this module: bench-child.ts under a TypeScript loader, .js once built.
const childEntry = fileURLToPath(new URL(`./bench-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * Runs the benchmarks of `files`, each run in a fresh Node process (forked with this process's
 * flags, so a loader such as tsx carries over), round by round. Runs in one process are not
 * independent: they share its JIT state, and a bench run after another finds shared code (the
 * feeding, the operators) optimised — or deoptimised — for the other's types; the same bench can
 * then measure twice as slow in one invocation as in the next, with a small spread each time. A
 * process per run starts every run from the same state, so what still varies from run to run is
 * the noise, and shows in the spread.
 */
export async function runIsolated(
  files: readonly string[],
  options: { repeat?: number; onResult?: (result: BenchResult, run: number) => void; only?: (name: string) => boolean } = {},
): Promise<RunReport> {
  const benches: FileBench[] = [];
  for (const file of files) {
    (await loadBenchFile(file)).forEach((bench, index) => {
      if (options.only?.(bench.name) ?? true) benches.push({ file, index, name: bench.name });
    });
  }
  return runRounds(
    benches.map((b) => b.name),
    (index) => runInChild(benches[index]!),
    options,
  );
}

function runInChild(bench: FileBench): Promise<BenchResult> {
  const execArgv = [...process.execArgv];
  // What the benchmark prints goes to stderr (stdout may be a --json report).
  // Our own entry is TypeScript when we run from source: the child needs the loader we run under
  // (vitest's in-process one does not carry over).
  if (childEntry.endsWith('.ts') && !execArgv.some((arg) => arg.includes('tsx'))) execArgv.push('--import', 'tsx');
  return new Promise((resolve, reject) => {
    const child = fork(childEntry, [bench.file, String(bench.index)], { execArgv, stdio: ['ignore', 2, 2, 'ipc'] });
    let answer: { result?: BenchResult; error?: string } | undefined;
    child.on('message', (message) => (answer = message as typeof answer));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (answer?.result) resolve(answer.result);
      else reject(new Error(`${bench.name} (${bench.file}): ${answer?.error ?? `its process ended (${signal ?? `exit code ${code}`}) without a result`}`));
    });
  });
}
