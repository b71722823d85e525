import { renderHelp, type CommandDoc } from './flag-docs.js';
import type { FlagTable, FlagValues } from './flag-spec.js';
import { FlagError, parseFlags } from './flags.js';

/**
 * What every command's `main` shares: where its lines go, how a command line becomes values or
 * an exit code, and how a daemon waits for SIGINT/SIGTERM to shut down.
 */

/** Exit codes: 0 fine, 1 failed while running, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface CommandIO {
  /** A line for stdout: what the command reports (addresses, paths). */
  out(line: string): void;
  /** A line for stderr: warnings and errors. */
  err(line: string): void;
}

export const processIO: CommandIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A command that ends before it starts (help printed, or a usage error): the exit code. */
export interface Exit {
  readonly exitCode: number;
}

export const isExit = (value: unknown): value is Exit => typeof value === 'object' && value !== null && 'exitCode' in value;

/**
 * Turns a command line into what the command runs with: parses it against `table`, then
 * `convert`s the values (where checks across flags throw `FlagError`). Help and usage errors are
 * printed here and come back as an `Exit`; deprecation warnings are printed on the way.
 */
export function readCommandLine<const T extends FlagTable, C>(
  doc: CommandDoc,
  table: T,
  argv: readonly string[],
  io: CommandIO,
  convert: (values: FlagValues<T>) => C,
): C | Exit {
  try {
    const parsed = parseFlags(table, argv);
    if (parsed.help) {
      io.out(renderHelp(doc, table).trimEnd());
      return { exitCode: EXIT_OK };
    }
    if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
    for (const warning of parsed.warnings) io.err(warning);
    return convert(parsed.values);
  } catch (error) {
    if (error instanceof FlagError) return { exitCode: reportFlagError(doc, error, io) };
    throw error;
  }
}

/** Prints a usage error found after parsing (a check across flags) the way the parser's are. */
export function reportFlagError(doc: CommandDoc, error: FlagError, io: CommandIO): number {
  io.err(`${doc.name}: ${error.message}`);
  io.err(`Run '${doc.name} --help' for usage.`);
  return error.exitCode;
}

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Resolves after SIGINT or SIGTERM has been received and `close` has finished. A second signal,
 * or a close that hangs past the grace period, exits at once: an operator pressing Ctrl-C twice
 * means it.
 */
export function closeOnSignal(close: () => Promise<void>, io: CommandIO, graceMs = SHUTDOWN_GRACE_MS): Promise<number> {
  return new Promise((resolve) => {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const onSignal = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, onSignal);
      const force = () => {
        io.err('forced exit');
        process.exit(EXIT_FAILED);
      };
      for (const s of signals) process.once(s, force);
      setTimeout(() => {
        io.err(`shutdown took longer than ${graceMs / 1000}s`);
        force();
      }, graceMs).unref();
      io.err(`${signal} received, shutting down`);
      close().then(
        () => resolve(EXIT_OK),
        (error: unknown) => {
          io.err(`error while shutting down: ${(error as Error).message}`);
          resolve(EXIT_FAILED);
        },
      );
    };
    for (const s of signals) process.on(s, onSignal);
  });
}

/** The body of a bin file: run `main`, then exit with its code (a daemon's leftovers must not keep it alive). */
export async function runBin(main: (argv: readonly string[]) => Promise<number>): Promise<void> {
  let code: number;
  try {
    code = await main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    code = EXIT_FAILED;
  }
  process.exit(code);
}
