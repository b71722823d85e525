/**
 * Whether protobuf bytes may nest messages deeper than `limit`, found without the schema and
 * without recursion, before protobufjs (which recurses once per message level) reads them.
 *
 * On the wire a nested message is a length-delimited field like a string or bytes. The scan takes
 * every length-delimited field for a message and reads into it; when its content turns out not to
 * be one, it was bytes, and the scan goes on after it. So it never reads a byte twice, and the
 * depth it finds is at least the real one (a string that happens to read as messages counts too).
 */
export function protobufTooDeep(bytes: Uint8Array, limit: number): boolean {
  const ends: number[] = [];
  let pos = 0;
  const varint = (end: number): number => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (pos >= end) return -1;
      const byte = bytes[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return -1;
  };
  for (;;) {
    const end = ends.length > 0 ? ends[ends.length - 1]! : bytes.length;
    if (pos === end) {
      if (ends.length === 0) return false;
      ends.pop();
      continue;
    }
    const key = varint(end);
    let valid = key > 0 && key >= 8;
    if (valid) {
      switch (key % 8) {
        case 0:
          valid = varint(end) >= 0;
          break;
        case 1:
          pos += 8;
          valid = pos <= end;
          break;
        case 5:
          pos += 4;
          valid = pos <= end;
          break;
        case 2: {
          const length = varint(end);
          valid = length >= 0 && pos + length <= end;
          if (valid && length > 0) {
            ends.push(pos + length);
            if (ends.length > limit) return true;
          }
          break;
        }
        default:
          valid = false; // groups (3, 4) are not used by Kubernetes messages; 6 and 7 do not exist
      }
    }
    if (!valid) {
      // The innermost field taken for a message was bytes after all: go on after it.
      if (ends.length === 0) return false;
      pos = ends.pop()!;
    }
  }
}
