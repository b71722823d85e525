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
 * A daemon's way down, armed before its first part starts. Each part registers its close as it
 * comes up (`add`); SIGINT or SIGTERM — during start-up too — aborts `signal` and resolves
 * `requested`, and `close()` closes the parts in reverse order. Without it, a signal before the
 * daemon's own handler is installed ends the process with its children (containerd) left running.
 * A second signal, or a close that hangs past the grace period, exits at once: an operator
 * pressing Ctrl-C twice means it.
 */
export class Shutdown {
  readonly #io: CommandIO;
  readonly #graceMs: number;
  readonly #abort = new AbortController();
  readonly #closers: (() => Promise<void>)[] = [];
  readonly #onSignal = (signal: NodeJS.Signals): void => this.#received(signal);
  #resolveRequested!: () => void;
  /** Settles at the first SIGINT or SIGTERM. */
  readonly requested = new Promise<void>((resolve) => (this.#resolveRequested = resolve));

  constructor(io: CommandIO, graceMs = SHUTDOWN_GRACE_MS) {
    this.#io = io;
    this.#graceMs = graceMs;
    for (const s of SIGNALS) process.on(s, this.#onSignal);
  }

  /** Aborted at the first signal: start-up steps that can stop early listen to it. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Has a signal asked the daemon to stop? */
  get stopping(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Registers a started part's close; parts close last-added first. */
  add(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  /** Closes every part (newest first, each even when another failed); EXIT_OK, or EXIT_FAILED if one failed. */
  async close(): Promise<number> {
    for (const s of SIGNALS) process.off(s, this.#onSignal);
    let code = EXIT_OK;
    for (const close of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        this.#io.err(`error while shutting down: ${(error as Error).message}`);
        code = EXIT_FAILED;
      }
    }
    return code;
  }

  #received(signal: NodeJS.Signals): void {
    for (const s of SIGNALS) process.off(s, this.#onSignal);
    const force = () => {
      this.#io.err('forced exit');
      process.exit(EXIT_FAILED);
    };
    for (const s of SIGNALS) process.once(s, force);
    setTimeout(() => {
      this.#io.err(`shutdown took longer than ${this.#graceMs / 1000}s`);
      force();
    }, this.#graceMs).unref();
    this.#io.err(`${signal} received, shutting down`);
    this.#abort.abort(new Error(`${signal} received`));
    this.#resolveRequested();
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Resolves after SIGINT or SIGTERM has been received and `close` has finished (see `Shutdown`). */
export async function closeOnSignal(close: () => Promise<void>, io: CommandIO, graceMs = SHUTDOWN_GRACE_MS): Promise<number> {
  const shutdown = new Shutdown(io, graceMs);
  shutdown.add(close);
  await shutdown.requested;
  return shutdown.close();
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
