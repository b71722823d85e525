import protobuf from 'protobufjs';
import { protoRoot } from './schema.js';

/**
 * Every field of every message as `package.Message.field = number type`, sorted: what
 * test/encoding/proto-fields.pinned.txt pins so that a field number never changes.
 */
export function protoFieldTable(): string[] {
  const lines: string[] = [];
  const walk = (ns: protobuf.NamespaceBase) => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Type) {
        for (const f of o.fieldsArray) {
          const type = f instanceof protobuf.MapField ? `map<${f.keyType},${f.type}>` : `${f.repeated ? 'repeated ' : ''}${f.type}`;
          lines.push(`${o.fullName.slice(1)}.${f.name} = ${f.id} ${type}`);
        }
      }
      if (o instanceof protobuf.Namespace) walk(o);
    }
  };
  walk(protoRoot.everything());
  return lines.sort();
}

/** Every message of a kind (objects and their lists) svc can encode, as `package.Kind`. */
export function protoMessages(): string[] {
  return protoFieldTable().map((line) => line.slice(0, line.lastIndexOf('.', line.indexOf(' ')))).filter((v, i, all) => all.indexOf(v) === i);
}
