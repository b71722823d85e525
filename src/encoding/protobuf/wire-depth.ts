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
  // One frame per open message or group: where it must end (a group ends where its message does,
  // at the latest), and whether it is a group (closed by its end-group tag, not by its length).
  const ends: number[] = [];
  const groups: boolean[] = [];
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
    let valid = true;
    if (pos === end) {
      if (ends.length === 0) return false;
      if (!groups[groups.length - 1]) {
        ends.pop();
        groups.pop();
        continue;
      }
      valid = false; // a group its message ended without closing
    }
    const key = valid ? varint(end) : -1;
    valid = key >= 8;
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
            groups.push(false);
            if (ends.length > limit) return true;
          }
          break;
        }
        case 3: // a group (protobufjs skips an unknown one by recursing): a level like a message
          ends.push(end);
          groups.push(true);
          if (ends.length > limit) return true;
          break;
        case 4:
          valid = groups[groups.length - 1] === true;
          if (valid) {
            ends.pop();
            groups.pop();
          }
          break;
        default:
          valid = false; // 6 and 7 do not exist
      }
    }
    if (!valid) {
      // The innermost field taken for a message was bytes after all: go on after it. (Groups have
      // no length to skip by: the bytes are malformed, and protobufjs will say so.)
      while (groups[groups.length - 1] === true) {
        ends.pop();
        groups.pop();
      }
      if (ends.length === 0) return false;
      pos = ends.pop()!;
      groups.pop();
    }
  }
}
