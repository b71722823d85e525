import { Composer, isMap, isScalar, isSeq, Parser, type Document, type Node as YamlNode } from 'yaml';
import { badRequest } from '../../api/index.js';
import { jsonTextTooDeep, nestingTooDeep } from '../../encoding/index.js';
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
  // JSON.parse copes with any depth, but the walks after it recurse: refuse before parsing.
  if (jsonTextTooDeep(text)) throw nestingTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  return withDuplicates(text, value);
}

function withDuplicates(text: string, value: unknown): DecodedBody {
  // Only an object can repeat a key; a body without a second quote-colon cannot have two.
  return { value, duplicates: value !== null && typeof value === 'object' ? jsonDuplicates(text) : [] };
}

interface Frame {
  readonly parent: Frame | undefined;
  /** The key (in an object) or the index (in an array) this container sits at in its parent. */
  readonly at: string | number | undefined;
  readonly keys: Set<string> | undefined; // undefined for an array
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

/** Scans valid JSON text for keys repeated within one object. */
export function jsonDuplicates(text: string): string[] {
  const duplicates: string[] = [];
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x5c) {
          escaped = true;
          i++;
        } else if (c === 0x22) break;
      }
      if (top?.keys && top.expectKey) {
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        if (top.keys.has(key)) duplicates.push(fieldPath(pathOf(top), key));
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const at = top === undefined ? undefined : top.keys ? top.key : top.index;
      top = { parent: top, at, keys: ch === 0x7b ? new Set() : undefined, index: 0, key: undefined, expectKey: true };
    } else if (ch === 0x7d || ch === 0x5d) {
      top = top?.parent;
    } else if (ch === 0x2c /* , */) {
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return duplicates;
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
      if (jsonTextTooDeep(text)) throw nestingTooDeep();
      return withDuplicates(text, value);
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
