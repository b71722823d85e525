/**
 * SPDY/3's fixed zlib dictionary for header blocks (draft-mbelshe-httpbis-spdy-00 §2.6.10.1).
 * Both ends must use it byte for byte or inflate fails. It is built here from its two parts —
 * common header names and values, each with a 4-byte big-endian length, then a run of plain
 * text — rather than written out as 1423 bytes of hex.
 */

const LENGTH_PREFIXED = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding',
  'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection',
  'content-base', 'content-encoding', 'content-language', 'content-length', 'content-location',
  'content-md5', 'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host',
  'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified',
  'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer',
  'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via',
  'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url',
  'public', 'set-cookie', 'keep-alive', 'origin',
];

const PLAIN =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request' +
  '401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented' +
  '503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 ' +
  'Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,' +
  'application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=' +
  'gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

function build(): Buffer {
  const parts: Buffer[] = [];
  for (const word of LENGTH_PREFIXED) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(word.length);
    parts.push(length, Buffer.from(word, 'latin1'));
  }
  parts.push(Buffer.from(PLAIN, 'latin1'));
  return Buffer.concat(parts);
}

export const SPDY_HEADER_DICTIONARY: Buffer = build();
