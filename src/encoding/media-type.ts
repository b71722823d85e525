/**
 * Media types and `Accept` lists (RFC 9110 §12.5.1): `type/subtype;param=value;q=0.5`.
 * Types, subtypes and parameter names are case-insensitive and kept lowercase; parameter values
 * keep their case (`as=Table`).
 */

export interface MediaType {
  readonly type: string;
  readonly subtype: string;
  /** Parameters other than `q`, names lowercased, quotes removed. */
  readonly params: Readonly<Record<string, string>>;
  /** The `q` weight in an Accept list, 0..1; 1 when absent. */
  readonly q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** One media type or media range; undefined when it cannot be parsed. */
export function parseMediaType(text: string): MediaType | undefined {
  const parts = splitOutsideQuotes(text, ';');
  const essence = parts[0]!.trim().toLowerCase();
  const slash = essence.indexOf('/');
  if (slash <= 0) return undefined;
  const type = essence.slice(0, slash);
  const subtype = essence.slice(slash + 1);
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const part of parts.slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) {
      if (part.trim() === '') continue;
      return undefined;
    }
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (name === 'q') {
      const weight = Number(value);
      if (!/^[01](\.\d{0,3})?$/.test(value) || weight > 1) return undefined;
      q = weight;
    } else {
      params[name] = value;
    }
  }
  return { type, subtype, params, q };
}

/**
 * The ranges of an `Accept` header in the order given, skipping unparsable entries; an absent or
 * empty header accepts anything (`*\/*`).
 */
export function parseAccept(header: string | undefined): MediaType[] {
  if (header === undefined || header.trim() === '') return [ANY];
  const ranges: MediaType[] = [];
  for (const part of splitOutsideQuotes(header, ',')) {
    if (part.trim() === '') continue;
    const range = parseMediaType(part);
    if (range) ranges.push(range);
  }
  return ranges;
}

const ANY: MediaType = Object.freeze({ type: '*', subtype: '*', params: Object.freeze({}), q: 1 });

/** `type/subtype` (the essence, without parameters). */
export const essenceOf = (media: Pick<MediaType, 'type' | 'subtype'>) => `${media.type}/${media.subtype}`;

const PARAM = /^\s*[!#$%&'*+.^_`|~0-9a-z-]+=(?:[!#$%&'*+.^_`|~0-9a-z-]+|"(?:[^"\\]|\\.)*")\s*$/i;

/**
 * The essence of a Content-Type header, lowercased; undefined when absent or malformed. Stricter
 * than an Accept entry, as Go's mime.ParseMediaType is: every parameter is `name=value` (a token
 * or a quoted string) and only one trailing `;` is forgiven, so `application/json;;;` is no media
 * type at all (a 415, as Kubernetes answers).
 */
export function contentTypeEssence(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Clients send a handful of headers, every request: each is parsed once. Bounded all the same.
  const known = essences.get(header);
  if (known !== undefined || essences.has(header)) return known;
  const essence = parseContentType(header);
  if (essences.size >= MAX_REMEMBERED_HEADERS) essences.clear();
  essences.set(header, essence);
  return essence;
}
const MAX_REMEMBERED_HEADERS = 256;
const essences = new Map<string, string | undefined>();

function parseContentType(header: string): string | undefined {
  const parts = splitOutsideQuotes(header, ';');
  if (parts.length > 1 && parts[parts.length - 1]!.trim() === '') parts.pop();
  if (!parts.slice(1).every((part) => PARAM.test(part))) return undefined;
  const media = parseMediaType(parts.join(';'));
  return media && essenceOf(media);
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\\' && quoted) i++;
    else if (ch === separator && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}
