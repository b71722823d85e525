/**
 * Kubernetes' JSON bodies (objects, lists, `Status` errors, discovery) end with a newline, as Go's
 * `json.Encoder` writes them, and clients that print a body verbatim show it (the Python client's
 * `create_from_yaml` prints the Status of a failed create). svc's bodies end the same way.
 *
 * Each place that sends JSON adds it (no `onSend` hook: a hook costs every GET about a tenth of its
 * CPU). A GET sends the version's shared bytes with the newline stored after them (`bodyOf`,
 * served-object.ts), so nothing is copied; a plain list's last chunk ends with it; a gzipped body
 * has it inside the gzip stream; strings and bytes rendered for the request get it here.
 */

const NEWLINE_BYTE = 0x0a;
const NEWLINE = Buffer.from('\n');

/** `value` as a JSON body. */
export const jsonBody = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** JSON bytes made for this response, ending with a newline (copied once when they lack it). */
export const withNewline = (bytes: Uint8Array): Uint8Array => (bytes[bytes.length - 1] === NEWLINE_BYTE ? bytes : Buffer.concat([bytes, NEWLINE]));

/** `chunks`, then a newline unless the last of them ends with one. */
export function* endingWithNewline(chunks: Iterable<Uint8Array>): Generator<Uint8Array> {
  let last = -1;
  for (const chunk of chunks) {
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    yield chunk;
  }
  if (last !== NEWLINE_BYTE) yield NEWLINE;
}
