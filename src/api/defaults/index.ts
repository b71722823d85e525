import type { KubeObject } from '../meta.js';
import type { ResourceType } from '../resource-type.js';
import { KIND_DEFAULTS } from './kinds.js';
import type { Edit } from './json-fill.js';

export { defaultPullPolicy } from './pod.js';

/**
 * `object` with its kind's defaults and always-written fields filled in (kinds.ts). Applied on
 * every write before the object is stored and answered, so what is stored, served and watched
 * agree in every codec. The object itself when nothing was missing; never mutated.
 */
export function withDefaults<T extends KubeObject>(type: Pick<ResourceType, 'group' | 'kind'>, object: T): T {
  const edit = editOf(type);
  return edit ? (edit(object as unknown as Record<string, unknown>) as unknown as T) : object;
}

/**
 * Each type's edit, looked up once per type object (callers pass the registry's types and a few
 * constants): every write applied defaults, and its lookup key was a string made per write.
 */
const edits = new WeakMap<object, Edit | null>();
function editOf(type: Pick<ResourceType, 'group' | 'kind'>): Edit | undefined {
  let edit = edits.get(type);
  if (edit === undefined) edits.set(type, (edit = KIND_DEFAULTS[`${type.group}/${type.kind}`] ?? null));
  return edit ?? undefined;
}

/** Whether a kind has defaults of its own (the built-in kinds do). */
export const hasDefaults = (type: Pick<ResourceType, 'group' | 'kind'>): boolean => `${type.group}/${type.kind}` in KIND_DEFAULTS;
