import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { badRequest, invalid, requestEntityTooLarge, type GroupKind } from '../../api/index.js';
import { jsonSizeUpTo, MAX_OBJECT_BYTES, objectTooLarge } from '../../encoding/index.js';
import { isJsonObject } from './json-value.js';

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Operations one JSON patch may hold, as in Kubernetes. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** Checks that a decoded body is an RFC 6902 operation list (else 400) and returns it typed. */
export function jsonPatchOperations(body: unknown): Operation[] {
  if (!Array.isArray(body)) throw badRequest('a JSON patch must be a JSON array of operations');
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`the allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`);
  }
  body.forEach((op: unknown, i) => {
    if (!isJsonObject(op)) throw badRequest(`JSON patch operation ${i} is not an object`);
    if (typeof op['op'] !== 'string' || !OPS.has(op['op'])) {
      throw badRequest(`JSON patch operation ${i} has an unsupported op ${JSON.stringify(op['op'])}`);
    }
    if (typeof op['path'] !== 'string') throw badRequest(`JSON patch operation ${i} (${op['op']}) has no path`);
    if ((op['op'] === 'move' || op['op'] === 'copy') && typeof op['from'] !== 'string') {
      throw badRequest(`JSON patch operation ${i} (${op['op']}) has no from`);
    }
    if ((op['op'] === 'add' || op['op'] === 'replace' || op['op'] === 'test') && !('value' in op)) {
      throw badRequest(`JSON patch operation ${i} (${op['op']}) has no value`);
    }
  });
  return body as Operation[];
}

/**
 * Applies an RFC 6902 patch to a copy of `document`. A path that does not exist, or a `test`
 * that does not hold, fails the whole patch with 422 Invalid naming the operation; nothing of it
 * is applied.
 */
export function applyJsonPatch(document: unknown, operations: readonly Operation[], subject: { kind: GroupKind; name: string }): unknown {
  try {
    // One operation at a time, so that what `copy` operations copy is counted as they go: each can
    // double the document, and thirty would make it a thousand million times its size.
    let patched: unknown = jsonpatch.deepClone(document);
    let copied = 0;
    operations.forEach((op, index) => {
      if (op.op === 'copy') {
        copied += jsonSizeUpTo(jsonpatch.getValueByPointer(patched, op.from), MAX_OBJECT_BYTES);
        if (copied > MAX_OBJECT_BYTES) throw objectTooLarge(`more than ${MAX_OBJECT_BYTES} bytes (its copy operations alone copy that much)`);
      }
      patched = jsonpatch.applyOperation(patched, op, true, true, true, index).newDocument;
    });
    return patched;
  } catch (error) {
    const failure = error as { name?: string; index?: number; operation?: Operation; message?: string };
    if (failure.name !== 'TEST_OPERATION_FAILED' && !(error instanceof jsonpatch.JsonPatchError)) throw error;
    const op = failure.operation;
    const text =
      failure.name === 'TEST_OPERATION_FAILED'
        ? `the test operation failed: the value at ${op?.path} is not ${JSON.stringify((op as { value?: unknown } | undefined)?.value)}`
        : `the ${op?.op ?? ''} operation cannot be applied: ${firstLine(failure.message)}`;
    throw invalid(subject.kind, subject.name, [
      { reason: 'FieldValueInvalid', field: op?.path ?? '', message: `JSON patch operation ${failure.index ?? 0}: ${text}` },
    ]);
  }
}

const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0]!;
