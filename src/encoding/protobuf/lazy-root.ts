import protobuf from 'protobufjs';
import { internal } from '../../api/index.js';
import { codecsOnFirstUse } from './codecs-on-first-use.js';

const SCALARS = new Set(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);

/** One top-level message of a .proto source: its text, and the file's syntax and package. */
interface Declaration {
  readonly syntax: string;
  readonly pkg: string;
  readonly text: string;
}

/**
 * A protobufjs Root that holds the messages asked for and those their fields reach, nothing
 * else. A reflected message costs a few KB (its fields, a generated constructor whose prototype
 * holds every default); svc's .proto set has ~400 and a process uses the kinds it serves or
 * watches: the node agent, about half.
 *
 * The sources are indexed once (where each top-level message starts and ends); a message is
 * parsed from its own text when first looked up. Messages must be top level, as svc's are:
 * a nested message or enum is not found by its full name and fails the lookup.
 */
export class LazyProtoRoot {
  readonly #root = new protobuf.Root();
  readonly #sources: readonly string[];
  #declarations: Map<string, Declaration> | undefined;
  readonly #parsed = new Set<string>();

  constructor(sources: readonly string[]) {
    this.#sources = sources;
  }

  /** The full names of the messages parsed so far. */
  get parsed(): ReadonlySet<string> {
    return this.#parsed;
  }

  /** The message of a full name (`svc.core.v1.Pod`), parsed with all it reaches; undefined when there is none. */
  type(fullName: string): protobuf.Type | undefined {
    if (!this.#parsed.has(fullName)) {
      if (!this.#index().has(fullName)) return undefined;
      this.#parseReachable(fullName);
    }
    return this.#root.lookupType(fullName);
  }

  /** The message of a full name; throws when there is none (for names svc's own code writes). */
  lookupType(fullName: string): protobuf.Type {
    const type = this.type(fullName);
    if (!type) throw internal(`no protobuf message ${fullName}`);
    return type;
  }

  /** Every message parsed: the whole root, for listings and tests. */
  everything(): protobuf.Root {
    for (const name of this.#index().keys()) this.type(name);
    return this.#root;
  }

  #parseReachable(fullName: string): void {
    const pending = [fullName];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (this.#parsed.has(name)) continue;
      const declaration = this.#index().get(name);
      // An unknown name stays unresolved: resolveAll below names it.
      if (!declaration) continue;
      protobuf.parse(`syntax = "${declaration.syntax}";\npackage ${declaration.pkg};\n${declaration.text}`, this.#root, { keepCase: true });
      this.#parsed.add(name);
      const type = this.#root.lookupType(name);
      codecsOnFirstUse(type);
      for (const field of type.fieldsArray) {
        if (!SCALARS.has(field.type)) pending.push(this.#qualify(field.type, declaration.pkg));
      }
    }
    this.#root.resolveAll();
  }

  /** A field's type name as protobuf resolves it: from the innermost enclosing package outwards. */
  #qualify(name: string, pkg: string): string {
    if (name.startsWith('.')) return name.slice(1);
    const scopes = pkg.split('.');
    for (let depth = scopes.length; depth >= 0; depth -= 1) {
      const candidate = depth === 0 ? name : `${scopes.slice(0, depth).join('.')}.${name}`;
      if (this.#index().has(candidate)) return candidate;
    }
    return name;
  }

  #index(): Map<string, Declaration> {
    this.#declarations ??= indexSources(this.#sources);
    return this.#declarations;
  }
}

/** Each top-level message of the sources by full name, found by scanning (comments and strings skipped). */
function indexSources(sources: readonly string[]): Map<string, Declaration> {
  const declarations = new Map<string, Declaration>();
  for (const source of sources) {
    const syntax = /^\s*syntax\s*=\s*"(proto2|proto3)"\s*;/m.exec(source)?.[1] ?? 'proto2';
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(source)?.[1] ?? '';
    const header = /^message\s+(\w+)\s*\{/gm;
    for (let match = header.exec(source); match; match = header.exec(source)) {
      const end = closingBrace(source, match.index + match[0].length);
      const name = pkg ? `${pkg}.${match[1]!}` : match[1]!;
      declarations.set(name, { syntax, pkg, text: source.slice(match.index, end) });
      header.lastIndex = end;
    }
  }
  return declarations;
}

/** The index just past the brace that closes the one opened before `from`. */
function closingBrace(source: string, from: number): number {
  let depth = 1;
  for (let i = from; i < source.length; i += 1) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') i = source.indexOf('\n', i) < 0 ? source.length : source.indexOf('\n', i);
    else if (c === '/' && source[i + 1] === '*') i = source.indexOf('*/', i + 2) < 0 ? source.length : source.indexOf('*/', i + 2) + 1;
    else if (c === '"') i = source.indexOf('"', i + 1);
    else if (c === '{') depth += 1;
    else if (c === '}' && (depth -= 1) === 0) return i + 1;
  }
  throw internal('a message of the embedded .proto sources is not closed');
}
