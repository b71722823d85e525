import type { CelDecision, CelPathCheck, CelResourceCheck, ResourceRegistry } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import type { Store } from '../../storage/index.js';
import type { ApiObject } from '../api-object.js';
import type { ObjectReader } from '../object-reader.js';
import type { AdmissionAttributes } from './attributes.js';
import type { CachedObjects } from './cached-objects.js';

/** What plugins may use: the caches first, the store for reads that must be current and for quota writes. */
export interface AdmissionEnv {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly registry: ResourceRegistry;
  readonly objects: CachedObjects;
  /** The server's authorizer chain, for CEL's `authorizer` (absent in a server built without one). */
  readonly authorize?: ((user: UserInfo, target: CelResourceCheck | CelPathCheck, verb: string) => CelDecision) | undefined;
}

/** Per request: where a plugin's warnings go (the `Warning` response header), and what undoes its side effects. */
export interface AdmissionRequestScope {
  warn(texts: readonly string[]): void;
  /** Registers what to undo when the write admission let through is not stored after all (a quota charge). */
  onAbandon(undo: () => Promise<void>): void;
  /** Adds annotations to the request's audit event (ValidatingAdmissionPolicy's auditAnnotations and Audit action). */
  annotate(annotations: Readonly<Record<string, string>>): void;
}

/** A kind of request: what `appliesTo` may decide on. */
export interface AdmissionKind {
  readonly operation: AdmissionAttributes['operation'];
  readonly type: AdmissionAttributes['type'];
  readonly subresource: string;
}

/**
 * One admission plugin. `admit` runs in the mutating phase and returns the object to go on with
 * (the same one when it changes nothing); `validate` runs after the mutated object has passed
 * schema validation again, and may only accept or throw. A rejection is a thrown StatusError.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /**
   * Whether the plugin can act on requests of this kind at all (absent: it may act on any). The
   * chain asks once per kind of request and leaves the plugin out of the others, so that a write
   * does not pay for plugins that only ever look at, say, pods. It must depend on nothing else.
   */
  appliesTo?(kind: AdmissionKind): boolean;
  admit?(attrs: AdmissionAttributes, scope: AdmissionRequestScope): Promise<ApiObject | undefined> | ApiObject | undefined;
  validate?(attrs: AdmissionAttributes, scope: AdmissionRequestScope): Promise<void> | void;
}

export type PluginFactory = (env: AdmissionEnv) => AdmissionPlugin;
