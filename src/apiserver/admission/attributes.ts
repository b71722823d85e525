import type { ResourceType } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import type { ApiObject } from '../api-object.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * What admission knows about one request (kube's admission.Attributes). `object` is what the
 * request would store (absent on DELETE and CONNECT); `oldObject` the stored object an UPDATE or
 * DELETE replaces. Both are the handlers' values, never mutated in place: a mutating plugin
 * returns a new object.
 */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly type: ResourceType;
  /** `''` for the main resource. */
  readonly subresource: string;
  /** `''` for cluster-scoped objects. */
  readonly namespace: string;
  /** `''` when the server will generate it. */
  readonly name: string;
  readonly object: ApiObject | undefined;
  readonly oldObject: ApiObject | undefined;
  readonly dryRun: boolean;
  /** The operation's options as AdmissionReview carries them (CreateOptions, UpdateOptions, DeleteOptions, PatchOptions). */
  readonly options: Readonly<Record<string, unknown>> | undefined;
  readonly user: UserInfo | undefined;
}

/** The attributes with another object: how the mutating chain hands its result on. */
export const withObject = (attrs: AdmissionAttributes, object: ApiObject | undefined): AdmissionAttributes => ({ ...attrs, object });
