/**
 * The shape of one row of a daemon's flag table, and the TypeScript types its parsed value gets.
 * Rows are plain data built with the `flag.*` helpers, so that one table can drive parsing,
 * `--help` and the generated docs page, and so that the parsed values are typed from the table.
 */

export type FlagType = 'string' | 'bool' | 'int' | 'int32' | 'float' | 'duration' | 'enum' | 'stringSlice' | 'stringArray' | 'map' | 'multimap';

/** The type of the values of a `map` flag (`k=v` pairs); keys are always strings. */
export type MapValueType = 'string' | 'bool' | 'int' | 'float';

export type MapValue<M extends MapValueType> = M extends 'string' ? string : M extends 'bool' ? boolean : number;

/** What every row has, whatever its type. */
export interface FlagOptions<T> {
  /** One sentence or two for `--help` and the docs page: what the option changes. */
  readonly meaning: string;
  /** A one-letter alias used with a single dash (`-v 3`). */
  readonly short?: string;
  /**
   * The value when the flag is not given. Without it a scalar is `undefined`, a bool `false`,
   * a slice `[]` and a map `{}`.
   */
  readonly default?: T;
  /** Why the flag is deprecated and what to use instead; using it then prints this as a warning. */
  readonly deprecated?: string;
  /** The name of the value in `--help` (`--data-dir path`), when the type name says too little. */
  readonly valueName?: string;
  /**
   * Checks a parsed value; returns what is wrong with it, or `undefined` when it is fine.
   * (Method syntax on purpose: a row with a narrower value type must still fit `FlagSpec`.)
   */
  validate?(value: T): string | undefined;
}

export interface StringFlag extends FlagOptions<string> {
  readonly type: 'string';
}
export interface BoolFlag extends FlagOptions<boolean> {
  readonly type: 'bool';
}
export interface NumberFlag extends FlagOptions<number> {
  /** `duration` values are milliseconds; `int32` is range-checked like Go's int32. */
  readonly type: 'int' | 'int32' | 'float' | 'duration';
}
export interface EnumFlag<V extends string = string> extends FlagOptions<V> {
  readonly type: 'enum';
  readonly values: readonly V[];
}
export interface StringSliceFlag extends FlagOptions<readonly string[]> {
  readonly type: 'stringSlice';
}
/** Repeatable like a slice, but each occurrence is one item, commas and all (`--tls-sni-cert-key a.crt,a.key`). */
export interface StringArrayFlag extends FlagOptions<readonly string[]> {
  readonly type: 'stringArray';
}
export interface MapFlag<M extends MapValueType = MapValueType> extends FlagOptions<Readonly<Record<string, MapValue<M>>>> {
  readonly type: 'map';
  readonly of: M;
}
export interface MultimapFlag extends FlagOptions<Readonly<Record<string, readonly string[]>>> {
  readonly type: 'multimap';
}

export type FlagSpec = StringFlag | BoolFlag | NumberFlag | EnumFlag | StringSliceFlag | StringArrayFlag | MapFlag | MultimapFlag;

/** A daemon's options by flag name (`data-dir`), in the order `--help` lists them. */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

type ValueOf<S> = S extends { type: 'string' }
  ? string
  : S extends { type: 'bool' }
    ? boolean
    : S extends { type: 'int' | 'int32' | 'float' | 'duration' }
      ? number
      : S extends { type: 'enum'; values: readonly (infer V)[] }
        ? V
        : S extends { type: 'stringSlice' | 'stringArray' }
          ? readonly string[]
          : S extends { type: 'map'; of: infer M extends MapValueType }
            ? Readonly<Record<string, MapValue<M>>>
            : S extends { type: 'multimap' }
              ? Readonly<Record<string, readonly string[]>>
              : never;

/** Types whose absence has a natural value (false, empty), so they are never `undefined`. */
type AlwaysSet = { type: 'bool' | 'stringSlice' | 'stringArray' | 'map' | 'multimap' };

export type FlagValue<S> = S extends { default: unknown } ? ValueOf<S> : S extends AlwaysSet ? ValueOf<S> : ValueOf<S> | undefined;

/** `data-dir` → `dataDir`: how a flag is named in code. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The parsed values of a table, keyed by the camel-cased flag names. */
export type FlagValues<T extends FlagTable> = { -readonly [K in keyof T & string as CamelCase<K>]: FlagValue<T[K]> };

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Builders for table rows. Each keeps the literal type of its options, so whether a default was
 * given (and the allowed values of an enum) reaches the parsed values' type.
 */
export const flag = {
  string: <const O extends FlagOptions<string>>(options: O) => ({ type: 'string', ...options }) as const,
  bool: <const O extends FlagOptions<boolean>>(options: O) => ({ type: 'bool', ...options }) as const,
  int: <const O extends FlagOptions<number>>(options: O) => ({ type: 'int', ...options }) as const,
  int32: <const O extends FlagOptions<number>>(options: O) => ({ type: 'int32', ...options }) as const,
  float: <const O extends FlagOptions<number>>(options: O) => ({ type: 'float', ...options }) as const,
  /** Values and defaults in milliseconds; written like `1m30s` on the command line. */
  duration: <const O extends FlagOptions<number>>(options: O) => ({ type: 'duration', ...options }) as const,
  enum: <const V extends string, const O extends FlagOptions<NoInfer<V>>>(values: readonly V[], options: O) =>
    ({ type: 'enum', values, ...options }) as const,
  stringSlice: <const O extends FlagOptions<readonly string[]>>(options: O) => ({ type: 'stringSlice', ...options }) as const,
  stringArray: <const O extends FlagOptions<readonly string[]>>(options: O) => ({ type: 'stringArray', ...options }) as const,
  map: <const M extends MapValueType, const O extends FlagOptions<Readonly<Record<string, MapValue<NoInfer<M>>>>>>(of: M, options: O) =>
    ({ type: 'map', of, ...options }) as const,
  multimap: <const O extends FlagOptions<Readonly<Record<string, readonly string[]>>>>(options: O) =>
    ({ type: 'multimap', ...options }) as const,
};
