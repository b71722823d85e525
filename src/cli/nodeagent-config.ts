import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { camelCase, type FlagSpec } from './flag-spec.js';
import { parseFlags, FlagError } from './flags.js';
import { parseValue } from './flag-values.js';
import { configFieldOf, nodeAgentFlags, type NodeAgentFlagName, type NodeAgentFlags } from './nodeagent-flags.js';

/**
 * The node agent's options from their four sources, in order of precedence: the defaults, the
 * `--config` file, the `--config-dir` drop-ins (in lexical order of their names), then the
 * command line. A file is a `NodeAgentConfiguration` (YAML or JSON) whose fields are the
 * `configField`s of nodeagent-flags.ts; a field it does not know is an error, as is a value of the
 * wrong type, so a typo is never silently ignored.
 */

export const CONFIG_API_VERSION = 'nodeagent.config.svc.io/v1';
export const CONFIG_KIND = 'NodeAgentConfiguration';
/** Drop-in files are the `*.conf` files of `--config-dir`; others (editor backups, READMEs) are skipped. */
export const DROP_IN_SUFFIX = '.conf';

/** An option's value and where it came from, for error messages and `/configz`. */
export type OptionSource = 'default' | 'config' | 'drop-in' | 'flag';

export interface ResolvedOptions {
  readonly values: NodeAgentFlags;
  /** Where each option that is not at its default was set. */
  readonly sources: ReadonlyMap<NodeAgentFlagName, OptionSource>;
  /** Deprecation notices of the flags used (each names the config field that replaces it). */
  readonly warnings: readonly string[];
  /** The config files read, in the order they were applied. */
  readonly files: readonly string[];
}

/** A config file's field → its option. */
const BY_FIELD: ReadonlyMap<string, NodeAgentFlagName> = new Map(
  (Object.keys(nodeAgentFlags) as NodeAgentFlagName[]).flatMap((name) => {
    const field = configFieldOf(name);
    return field === undefined ? [] : [[field, name] as const];
  }),
);

/** Every field a config file may set, for documentation. */
export function configFields(): ReadonlyMap<string, NodeAgentFlagName> {
  return BY_FIELD;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Flattens a config document into `field path → value` for the known fields. Nested objects are
 * walked only where some known field lies below them (`authentication.x509.clientCAFile`), so a
 * map-valued field (`evictionHard`) is taken whole.
 */
function flatten(document: Record<string, unknown>, file: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (object: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(object)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (prefix === '' && (key === 'apiVersion' || key === 'kind')) continue;
      if (BY_FIELD.has(path)) {
        out.set(path, value);
      } else if (isPlainObject(value) && [...BY_FIELD.keys()].some((field) => field.startsWith(`${path}.`))) {
        walk(value, path);
      } else {
        throw new FlagError(`${file}: unknown field "${path}" (the fields of a ${CONFIG_KIND} are listed in docs/node-agent-config.md)`);
      }
    }
  };
  walk(document, '');
  return out;
}

/** A config value in the option's type, checked by the option's own rule. */
function fieldValue(name: NodeAgentFlagName, field: string, raw: unknown, file: string): unknown {
  const spec = nodeAgentFlags[name] as FlagSpec;
  const where = `${file}: field "${field}"`;
  const fail = (problem: string): never => {
    throw new FlagError(`${where}: ${problem}`);
  };
  let value: unknown;
  switch (spec.type) {
    case 'string':
      if (typeof raw !== 'string') fail('must be a string');
      value = raw;
      break;
    case 'enum':
      if (typeof raw !== 'string' || !spec.values.includes(raw)) fail(`must be one of ${spec.values.join(', ')}`);
      value = raw;
      break;
    case 'bool':
      if (typeof raw !== 'boolean') fail('must be true or false');
      value = raw;
      break;
    case 'int':
    case 'int32':
    case 'float': {
      const text = typeof raw === 'number' ? String(raw) : fail('must be a number');
      const parsed = parseValue(spec, text);
      if (!parsed.ok) fail(parsed.problem);
      value = (parsed as { value: unknown }).value;
      break;
    }
    case 'duration': {
      // Durations are written as in Kubernetes config files: "20s", "1m0s".
      const parsed = typeof raw === 'string' ? parseValue(spec, raw) : fail('must be a duration string such as "20s" or "1m0s"');
      if (!parsed.ok) fail(parsed.problem);
      value = (parsed as { value: unknown }).value;
      break;
    }
    case 'stringSlice':
      value = sliceFromConfig(name, raw, fail);
      break;
    case 'map': {
      if (!isPlainObject(raw)) fail('must be a map');
      const entries = Object.entries(raw as Record<string, unknown>);
      for (const [key, item] of entries) {
        const expected = spec.of === 'bool' ? 'boolean' : spec.of === 'string' ? 'string' : 'number';
        // Kubernetes config files write quantities as strings but sometimes as bare numbers.
        if (typeof item !== expected && !(expected === 'string' && typeof item === 'number')) fail(`the value of ${JSON.stringify(key)} must be a ${expected}`);
      }
      value = Object.fromEntries(entries.map(([key, item]) => [key, spec.of === 'string' ? String(item) : item]));
      break;
    }
    case 'multimap': {
      if (!isPlainObject(raw)) fail('must be a map of lists');
      const entries = Object.entries(raw as Record<string, unknown>);
      if (entries.some(([, list]) => !Array.isArray(list) || list.some((item) => typeof item !== 'string'))) fail('must be a map of lists of strings');
      value = Object.fromEntries(entries);
      break;
    }
  }
  const problem = (spec.validate as ((v: unknown) => string | undefined) | undefined)?.call(spec, value);
  if (problem) fail(problem);
  return value;
}

/** List-valued fields, some of which are structured in the file where the flag is flat text. */
function sliceFromConfig(name: NodeAgentFlagName, raw: unknown, fail: (problem: string) => never): readonly string[] {
  if (name === 'manifest-url-header') {
    // staticPodURLHeader: {Name: [values]}
    if (!isPlainObject(raw)) fail('must be a map of header names to lists of values');
    return Object.entries(raw as Record<string, unknown>).flatMap(([header, values]) =>
      Array.isArray(values) && values.every((v) => typeof v === 'string') ? values.map((v: string) => `${header}:${v}`) : fail(`the values of ${JSON.stringify(header)} must be a list of strings`),
    );
  }
  if (!Array.isArray(raw)) fail('must be a list');
  const list = raw as unknown[];
  if (name === 'register-with-taints') {
    // registerWithTaints: [{key, value, effect}]
    return list.map((taint) => {
      if (!isPlainObject(taint) || typeof taint['key'] !== 'string' || typeof taint['effect'] !== 'string') fail('each taint needs a key and an effect');
      const t = taint as Record<string, unknown>;
      return `${String(t['key'])}=${typeof t['value'] === 'string' ? t['value'] : ''}:${String(t['effect'])}`;
    });
  }
  if (name === 'reserved-memory') {
    // reservedMemory: [{numaNode, limits: {memory: 1Gi}}]
    return list.map((entry) => {
      if (!isPlainObject(entry) || typeof entry['numaNode'] !== 'number' || !isPlainObject(entry['limits'])) fail('each entry needs numaNode and limits');
      const e = entry as { numaNode: number; limits: Record<string, unknown> };
      return `${e.numaNode}:${Object.entries(e.limits)
        .map(([type, quantity]) => `${type}=${String(quantity)}`)
        .join(',')}`;
    });
  }
  if (list.some((item) => typeof item !== 'string')) fail('must be a list of strings');
  return list as string[];
}

/** Reads one file's documents (YAML or JSON; JSON is YAML) as a NodeAgentConfiguration. */
function readConfigFile(path: string): Map<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new FlagError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  const documents = parseAllDocuments(text, { uniqueKeys: true });
  const list = Array.isArray(documents) ? documents : [documents];
  if (list.length !== 1) throw new FlagError(`${path}: a config file holds exactly one ${CONFIG_KIND}`);
  const document = list[0]!;
  if (document.errors.length > 0) throw new FlagError(`${path}: not valid YAML or JSON: ${document.errors[0]!.message}`);
  const value: unknown = document.toJS();
  if (!isPlainObject(value)) throw new FlagError(`${path}: must hold an object`);
  if (value['kind'] !== CONFIG_KIND) throw new FlagError(`${path}: kind must be ${CONFIG_KIND}, not ${JSON.stringify(value['kind'])}`);
  if (value['apiVersion'] !== CONFIG_API_VERSION) throw new FlagError(`${path}: apiVersion must be ${CONFIG_API_VERSION}, not ${JSON.stringify(value['apiVersion'])}`);
  return flatten(value, path);
}

/** The `*.conf` files of a drop-in directory, in lexical order of their names. */
function dropInFiles(dir: string): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new FlagError(`--config-dir ${dir} is not a directory`);
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof FlagError) throw error;
    throw new FlagError(`cannot read --config-dir ${dir}: ${(error as Error).message}`);
  }
  return names
    .filter((name) => name.endsWith(DROP_IN_SUFFIX) && !name.startsWith('.'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * The options from every source. Throws `FlagError` for a bad flag, file or value (the command
 * prints it and exits 1). `--help` is the caller's to handle before this.
 */
export function resolveNodeAgentOptions(argv: readonly string[], cwd: string = process.cwd()): ResolvedOptions {
  const parsed = parseFlags(nodeAgentFlags, argv);
  if (parsed.help) throw new FlagError('--help is handled by the command');
  if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
  const values = { ...parsed.values } as Record<string, unknown>;
  const sources = new Map<NodeAgentFlagName, OptionSource>();
  const files: string[] = [];

  const apply = (path: string, source: OptionSource) => {
    files.push(path);
    for (const [field, raw] of readConfigFile(path)) {
      const name = BY_FIELD.get(field)!;
      // The command line wins over every file.
      if (parsed.given.has(name)) continue;
      const spec = nodeAgentFlags[name] as FlagSpec;
      const value = fieldValue(name, field, raw, path);
      const key = camelCase(name);
      // Later files add to maps set by earlier ones and replace everything else.
      values[key] = spec.type === 'map' && sources.has(name) ? { ...(values[key] as object), ...(value as object) } : value;
      sources.set(name, source);
    }
  };

  if (parsed.values.config !== undefined) apply(resolve(cwd, parsed.values.config), 'config');
  if (parsed.values.configDir !== undefined) for (const file of dropInFiles(resolve(cwd, parsed.values.configDir))) apply(file, 'drop-in');
  for (const name of parsed.given) sources.set(name as NodeAgentFlagName, 'flag');
  return { values: values as NodeAgentFlags, sources, warnings: parsed.warnings, files };
}
