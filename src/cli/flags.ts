import { camelCase, type FlagSpec, type FlagTable, type FlagValue, type FlagValues } from './flag-spec.js';
import { implicitValue, mergeValue, parseValue } from './flag-values.js';

/**
 * The flag engine every daemon shares: a table of rows (see flag-spec.ts) in, typed values out.
 *
 * Accepted forms: `--name=value`, `--name value`, `--bool` (true), `--bool=false`, `-x=value`,
 * `-x value`, `-xvalue`, `--help` / `-h`, and `--` to end the options. A repeated slice or map
 * flag adds to the earlier occurrences; any other repeated flag keeps the last one. A bool never
 * takes the next argument (`--bool false` is `--bool` and a positional `false`), so a positional
 * after a bool can't be swallowed by it.
 */

/** A command line the table rejects. Bins print the message and exit with `exitCode` (2). */
export class FlagError extends Error {
  override readonly name = 'FlagError';
  readonly exitCode = 2;
  /** The flag at fault, as typed (`--secure-port`), when there is one. */
  readonly flag: string | undefined;

  constructor(message: string, flag?: string) {
    super(message);
    this.flag = flag;
  }
}

export type ParseResult<T extends FlagTable> =
  | { readonly help: true }
  | {
      readonly help: false;
      readonly values: FlagValues<T>;
      /** Arguments that are not options, in order (a subcommand's operands). */
      readonly args: readonly string[];
      /** Names of the flags given on the command line (not defaulted). */
      readonly given: ReadonlySet<string>;
      /** One line per deprecated flag used, to print on stderr. */
      readonly warnings: readonly string[];
    };

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Checks a table once, where it is declared, so that a malformed row is a bug found by any test
 * that imports it rather than a surprise for the user who types that flag.
 */
export function defineFlags<const T extends FlagTable>(table: T): T {
  const shorts = new Set<string>();
  const keys = new Set<string>();
  for (const [name, spec] of Object.entries(table)) {
    if (!NAME.test(name)) throw new Error(`flag table: ${JSON.stringify(name)} is not a lower-case dashed name`);
    if (name === 'help') throw new Error('flag table: --help is built in');
    const key = camelCase(name);
    if (keys.has(key)) throw new Error(`flag table: --${name} collides with another flag in code (${key})`);
    keys.add(key);
    if (spec.short !== undefined) {
      if (!/^[a-zA-Z]$/.test(spec.short) || spec.short === 'h') throw new Error(`flag table: bad short name ${JSON.stringify(spec.short)} for --${name}`);
      if (shorts.has(spec.short)) throw new Error(`flag table: short name -${spec.short} used twice`);
      shorts.add(spec.short);
    }
    if (spec.type === 'enum' && spec.default !== undefined && !spec.values.includes(spec.default)) {
      throw new Error(`flag table: default of --${name} is not one of its values`);
    }
    const problem = spec.default !== undefined ? validateWith(spec, spec.default) : undefined;
    if (problem) throw new Error(`flag table: default of --${name} fails its own validation: ${problem}`);
  }
  return table;
}

function validateWith(spec: FlagSpec, value: unknown): string | undefined {
  // The value came out of parseValue for this very spec, so it has the type validate expects.
  return (spec.validate as ((v: unknown) => string | undefined) | undefined)?.call(spec, value);
}

/** Parses `argv` (without the program name) against `table`. Throws `FlagError`. */
export function parseFlags<const T extends FlagTable>(table: T, argv: readonly string[]): ParseResult<T> {
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(table)) if (spec.short) byShort.set(spec.short, name);

  const values = new Map<string, unknown>();
  const given = new Set<string>();
  const warnings: string[] = [];
  const args: string[] = [];

  const apply = (name: string, spec: FlagSpec, text: string, typed: string): void => {
    const parsed = parseValue(spec, text);
    if (!parsed.ok) throw new FlagError(`invalid argument ${JSON.stringify(text)} for ${typed} flag: ${parsed.problem}`, typed);
    // The first occurrence replaces the default; later ones accumulate (for slices and maps).
    const value = given.has(name) ? mergeValue(spec, values.get(name), parsed.value) : parsed.value;
    const problem = validateWith(spec, value);
    if (problem) throw new FlagError(`invalid argument ${JSON.stringify(text)} for ${typed} flag: ${problem}`, typed);
    if (spec.deprecated && !given.has(name)) warnings.push(`Flag --${name} has been deprecated, ${spec.deprecated}`);
    values.set(name, value);
    given.add(name);
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    let name: string;
    let typed: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      typed = `--${name}`;
      if (name === 'help') return { help: true };
      if (!Object.hasOwn(table, name)) throw new FlagError(`unknown flag: ${typed}`, typed);
    } else if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1]!;
      const rest = arg.slice(2);
      if (letter === 'h' && rest === '') return { help: true };
      const long = byShort.get(letter);
      if (long === undefined) throw new FlagError(`unknown shorthand flag: '${letter}' in ${arg}`, `-${letter}`);
      name = long;
      typed = `-${letter}`;
      inline = rest.startsWith('=') ? rest.slice(1) : rest === '' ? undefined : rest;
    } else {
      args.push(arg);
      continue;
    }
    const spec = table[name]!;
    if (inline === undefined) {
      if (spec.type === 'bool') inline = 'true';
      else if (i + 1 < argv.length) inline = argv[++i]!;
      else throw new FlagError(`flag needs an argument: ${typed}`, typed);
    }
    apply(name, spec, inline, typed);
  }

  const result: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    result[camelCase(name)] = values.has(name) ? values.get(name) : (spec.default ?? implicitValue(spec));
  }
  return { help: false, values: result as FlagValues<T>, args, given, warnings };
}

/** Replaces some defaults of a table (a command that embeds a daemon with other defaults). */
export function withDefaults<const T extends FlagTable>(table: T, defaults: { readonly [K in keyof T]?: NonNullable<FlagValue<T[K]>> }): T {
  const copy: Record<string, FlagSpec> = {};
  for (const [name, spec] of Object.entries(table)) {
    copy[name] = Object.hasOwn(defaults, name) ? ({ ...spec, default: defaults[name as keyof T] } as FlagSpec) : spec;
  }
  return defineFlags(copy as T);
}
