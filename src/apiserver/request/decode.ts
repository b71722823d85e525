import { Composer, isMap, isScalar, isSeq, Parser, type Document, type Node as YamlNode } from 'yaml';
import { badRequest } from '../../api/index.js';
import { jsonStringEnd, MAX_NESTING_DEPTH, nestingTooDeep } from '../../encoding/index.js';
import { checkYamlLimits, yamlTextTooDeep } from './yaml-limits.js';

/**
 * Request bodies decoded for the write verbs: the value, and every field given twice (the
 * decoders see duplicate keys, which JSON.parse and a plain YAML load would silently collapse;
 * the last value wins, as in Kubernetes). Paths are written as in field causes:
 * `spec.containers[0].name`.
 */
export interface DecodedBody {
  readonly value: unknown;
  readonly duplicates: readonly string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function bodyText(raw: unknown): string {
  if (raw instanceof Uint8Array) {
    try {
      return utf8.decode(raw);
    } catch {
      throw badRequest('the request body is not valid UTF-8');
    }
  }
  return String(raw);
}

const fieldPath = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);

export function decodeJson(text: string): DecodedBody {
  // JSON.parse copes with any depth, but the walks after it recurse: refuse before parsing. One
  // scan finds the depth and the repeated keys (for text that does not parse, the 400 wins).
  const scan = scanJsonText(text);
  if (scan === TOO_DEEP) throw nestingTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  // Only an object can repeat a key.
  return { value, duplicates: value !== null && typeof value === 'object' ? scan : [] };
}

interface Frame {
  readonly parent: Frame | undefined;
  /** The key (in an object) or the index (in an array) this container sits at in its parent. */
  readonly at: string | number | undefined;
  /** The object's keys so far (undefined for an array): a list while short, a set past that. */
  keys: string[] | Set<string> | undefined;
  index: number;
  key: string | undefined;
  expectKey: boolean;
}

/** A container's field path, built only for a duplicate: most bodies have none. */
function pathOf(frame: Frame | undefined): string {
  if (!frame?.parent) return '';
  const parent = pathOf(frame.parent);
  return typeof frame.at === 'number' ? `${parent}[${frame.at}]` : fieldPath(parent, frame.at ?? '');
}

const TOO_DEEP: readonly string[] = [];

/**
 * One pass over JSON text: TOO_DEEP when objects and arrays nest deeper than `limit` (see
 * jsonTextTooDeep), else the keys repeated within one object. Exact for valid JSON; text that is
 * not valid JSON gets some answer and is then refused by the parser.
 */
export function scanJsonText(text: string, limit = MAX_NESTING_DEPTH): readonly string[] {
  const duplicates: string[] = [];
  let top: Frame | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const start = i;
      i = jsonStringEnd(text, i);
      if (top?.keys && top.expectKey) {
        const raw = text.slice(start + 1, i);
        const key = raw.includes('\\') ? unescapedKey(text.slice(start, i + 1), raw) : raw;
        if (seen(top, key)) duplicates.push(fieldPath(pathOf(top), key));
        top.key = key;
        top.expectKey = false;
      }
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (++depth > limit) return TOO_DEEP;
      const at = top === undefined ? undefined : top.keys ? top.key : top.index;
      top = { parent: top, at, keys: ch === 0x7b ? [] : undefined, index: 0, key: undefined, expectKey: true };
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      if (depth > 0) depth--;
      top = top?.parent;
    } else if (ch === 0x2c /* , */) {
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return duplicates;
}

// Most objects have a handful of keys: a list's search beats a set's hashing (and its allocation)
// up to about this many.
const SHORT_KEYS = 16;

/** Whether the object's keys so far include `key`; adds it. */
function seen(frame: Frame, key: string): boolean {
  const keys = frame.keys!;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return true;
    if (keys.length < SHORT_KEYS) keys.push(key);
    else frame.keys = new Set([...keys, key]);
    return false;
  }
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

/** The keys repeated within one object of valid JSON text, named by their paths. */
export const jsonDuplicates = (text: string): readonly string[] => scanJsonText(text, Infinity);

/** A key with escapes, as JSON reads it; in text that is not valid JSON any answer will do. */
function unescapedKey(quoted: string, raw: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return raw;
  }
}

/** A body that may be JSON: its first character opens an object or an array. */
const JSON_START = /^[\s\uFEFF]*[{[]/;

/**
 * One YAML document (JSON is YAML too); several documents, or none, are a 400. JSON text (what
 * client-go sends as an apply patch) is read as JSON: faster, and without the YAML composer's
 * recursion. YAML is checked for depth and aliases (checkYamlLimits) before it is composed.
 */
export function decodeYaml(text: string): DecodedBody {
  if (JSON_START.test(text)) {
    let value: unknown;
    let json = true;
    try {
      value = JSON.parse(text);
    } catch {
      json = false; // a YAML flow collection, such as {a: 1}
    }
    if (json) {
      const scan = scanJsonText(text);
      if (scan === TOO_DEEP) throw nestingTooDeep();
      return { value, duplicates: value !== null && typeof value === 'object' ? scan : [] };
    }
  }
  const doc = composeOne(text);
  if (doc.errors.length > 0) throw badRequest(`the request body is not valid YAML: ${doc.errors[0]!.message}`);
  const duplicates: string[] = [];
  walkYaml(doc.contents, '', duplicates);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw badRequest(`the request body cannot be decoded: ${(error as Error).message}`);
  }
  return { value, duplicates };
}

function composeOne(text: string): Document.Parsed {
  if (yamlTextTooDeep(text)) throw nestingTooDeep();
  const tokens = [...new Parser().parse(text)];
  checkYamlLimits(tokens);
  const docs = [...new Composer({ uniqueKeys: false, prettyErrors: false }).compose(tokens, true, text.length)];
  const doc = docs[0]!;
  if (docs.length > 1) throw badRequest('the request body is not valid YAML: it holds more than one document');
  return doc;
}

function walkYaml(node: YamlNode | null | undefined, path: string, duplicates: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (seen.has(key)) duplicates.push(fieldPath(path, key));
      seen.add(key);
      walkYaml(pair.value as YamlNode | null, fieldPath(path, key), duplicates);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => walkYaml(item as YamlNode | null, `${path}[${i}]`, duplicates));
  }
}
