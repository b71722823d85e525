import type { ApiObject } from './api-object.js';

/**
 * The JSON text of a write's answer when the write path has it already (the stored text with the
 * version spliced in), so that sending the answer does not encode the object a second time.
 * Weak: the entry goes with the answer object.
 */
const texts = new WeakMap<ApiObject, string>();

export function withAnswerText(object: ApiObject, text: string | undefined): ApiObject {
  if (text !== undefined) texts.set(object, text);
  return object;
}

/** The text `withAnswerText` gave the object; undefined for any other object. */
export const answerTextOf = (object: unknown): string | undefined => (object !== null && typeof object === 'object' ? texts.get(object as ApiObject) : undefined);
