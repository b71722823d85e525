/**
 * Copy-on-write edits of decoded JSON, for defaulting: each returns the value it was given when
 * nothing changed, and a shallow copy along the changed path otherwise. Inputs are never
 * mutated (they may be shared or frozen: a stored version, an admission cache entry).
 */

export type JsonMap = Record<string, unknown>;

export const isMap = (value: unknown): value is JsonMap => typeof value === 'object' && value !== null && !Array.isArray(value);

export type Edit = (value: JsonMap) => JsonMap;

/** The edits applied in turn. */
export const pipe =
  (...edits: readonly Edit[]): Edit =>
  (value) =>
    edits.reduce((acc, edit) => edit(acc), value);

/** Sets each of `fields` that is absent. `fields` is a fresh literal per call: its values are not shared. */
export const fill =
  (fields: () => JsonMap): Edit =>
  (value) => {
    let out: JsonMap | undefined;
    for (const [key, field] of Object.entries(fields())) {
      if (value[key] === undefined) (out ??= { ...value })[key] = field;
    }
    return out ?? value;
  };

/**
 * Edits the map under `key`, `{}` when absent: a Go struct field is written even when empty.
 * A field of another JSON type is left as it is (validation reports it).
 */
export const within =
  (key: string, edit: Edit): Edit =>
  (value) => {
    const child = value[key];
    if (child !== undefined && !isMap(child)) return value;
    const edited = edit(child ?? {});
    return edited === child ? value : { ...value, [key]: edited };
  };

/** Edits the map under `key` only when it is there (a Go pointer field: absent stays absent). */
export const ifPresent =
  (key: string, edit: Edit): Edit =>
  (value) => {
    const child = value[key];
    if (!isMap(child)) return value;
    const edited = edit(child);
    return edited === child ? value : { ...value, [key]: edited };
  };

/** Edits each map in the array under `key`. */
export const eachItem =
  (key: string, edit: Edit): Edit =>
  (value) => {
    const list = value[key];
    if (!Array.isArray(list)) return value;
    let changed = false;
    const out = list.map((item: unknown) => {
      if (!isMap(item)) return item;
      const edited = edit(item);
      if (edited !== item) changed = true;
      return edited;
    });
    return changed ? { ...value, [key]: out } : value;
  };

/** An edit chosen from the value itself. */
export const when =
  (choose: (value: JsonMap) => Edit | undefined): Edit =>
  (value) =>
    choose(value)?.(value) ?? value;
