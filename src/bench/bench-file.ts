import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Benchmark, BenchList } from './runs.js';

/** Why a benchmark file could not be used: its message says which file and what is wrong. */
export class BenchFileError extends Error {}

/** A benchmark file's default export (made with `defineBenchmarks`), checked. */
export async function loadBenchFile(file: string): Promise<BenchList> {
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(resolve(file)).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new BenchFileError(`cannot load ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(exported) || !exported.every((b): b is Benchmark => typeof b === 'object' && b !== null && typeof (b as Benchmark).run === 'function')) {
    throw new BenchFileError(`${file} has no default export made with defineBenchmarks`);
  }
  return exported;
}
