import type { ApiObject } from '../api-object.js';
import type { FastifyRequest } from 'fastify';
import { reviewOptions, type AdmissionOperation, type AdmissionRequestScope, type Admitted } from '../admission/index.js';
import { queryParam, type HandlerContext } from '../request/index.js';
import { addWarnings } from './warnings.js';
import { addAuditAnnotations } from '../audit/index.js';

/** Which options object a request carries into AdmissionReview. */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export interface WriteAdmission {
  readonly operation: AdmissionOperation;
  /** The object the request would store (absent on DELETE). */
  readonly object?: ApiObject | undefined;
  /** The stored object an UPDATE or DELETE replaces. */
  readonly oldObject?: ApiObject | undefined;
  readonly dryRun: boolean;
  readonly optionsKind: OptionsKind;
  /** Extra fields of the options object (a delete's propagationPolicy, gracePeriodSeconds, preconditions). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Re-runs the handler's schema checks on an object a plugin changed. */
  readonly revalidate?: (object: ApiObject) => ApiObject;
}

const undos = new WeakMap<FastifyRequest, (() => Promise<void>)[]>();

/**
 * Undoes what admission did for a request whose write then failed (the name was taken): a quota
 * charge is given back. Best effort: the quota recount corrects what this cannot.
 */
export async function abandonAdmission(ctx: HandlerContext): Promise<void> {
  const list = undos.get(ctx.request);
  undos.delete(ctx.request);
  for (const undo of list ?? []) await undo().catch(() => undefined);
}

/**
 * Admission for one write handler: the request's attributes from its context, warnings into the
 * reply's `Warning` header. Returns the object to store: at once when no plugin had anything to
 * wait for (a write with no webhook or policy that selects it), else a promise (chain.ts); a
 * refusal is thrown or rejected. Callers await it; a hot path may test for the promise first.
 */
export function admitWrite(ctx: HandlerContext, write: WriteAdmission): Admitted {
  const { type, info } = ctx;
  const name = write.object?.metadata.name ?? write.oldObject?.metadata.name ?? info.name ?? '';
  return ctx.admission.admit(
    {
      operation: write.operation,
      type,
      subresource: info.subresource ?? '',
      namespace: type.namespaced ? (info.namespace ?? write.object?.metadata.namespace ?? write.oldObject?.metadata.namespace ?? '') : '',
      name,
      object: write.object,
      oldObject: write.oldObject,
      dryRun: write.dryRun,
      options: optionsOf(ctx, write),
      user: ctx.request.user,
    },
    new WriteScope(ctx),
    write.revalidate,
  );
}

/** A request's options object with nothing but its kind, per kind: most writes carry no option. */
const bareOptions = new Map<OptionsKind, Readonly<Record<string, unknown>>>();

/** The options object AdmissionReview and policies see (shared and frozen when the request set none). */
function optionsOf(ctx: HandlerContext, write: WriteAdmission): Readonly<Record<string, unknown>> {
  const fieldManager = write.optionsKind === 'DeleteOptions' ? undefined : queryParam(ctx, 'fieldManager');
  if (!write.dryRun && !fieldManager && write.options === undefined) {
    let bare = bareOptions.get(write.optionsKind);
    if (!bare) bareOptions.set(write.optionsKind, (bare = Object.freeze(reviewOptions(write.optionsKind, {}))));
    return bare;
  }
  return reviewOptions(write.optionsKind, {
    ...(write.dryRun ? { dryRun: ['All'] } : {}),
    ...(fieldManager ? { fieldManager } : {}),
    ...(write.options ?? {}),
  });
}

/** Where a write's admission puts its warnings, undos and audit annotations (a class: no closures made per write). */
class WriteScope implements AdmissionRequestScope {
  constructor(private readonly ctx: HandlerContext) {}

  warn(texts: readonly string[]): void {
    addWarnings(this.ctx.reply, texts);
  }

  onAbandon(undo: () => Promise<void>): void {
    undos.set(this.ctx.request, [...(undos.get(this.ctx.request) ?? []), undo]);
  }

  annotate(annotations: Readonly<Record<string, string>>): void {
    addAuditAnnotations(this.ctx.request, annotations);
  }
}
