/** A value `depth` containers deep: depth 1 is {"a":"x"}. */
export function nested(depth: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** JSON text `depth` objects deep, built without JSON.stringify (which recurses). */
export const nestedJson = (depth: number) => '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);
