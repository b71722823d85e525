import type { ResourceRegistry } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import type { ApiObject } from '../api-object.js';
import type { ObjectReader } from '../object-reader.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { AdmissionAttributes } from './attributes.js';
import { CachedObjects } from './cached-objects.js';
import { AdmissionChain, type Admitted } from './chain.js';
import type { AdmissionEnv, AdmissionRequestScope } from './plugin.js';
import { ADMISSION_PLUGINS, createPlugin, enabledPlugins, isAdmissionPluginName } from './plugins.js';
import { QuotaUsageSync } from './quota-sync.js';
import { WebhookClient } from './webhook/call.js';
import { celAuthorize } from './policy/authorize-bridge.js';
import type { Authorizer } from '../authz/index.js';

export interface AdmissionOptions {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly registry: ResourceRegistry;
  readonly caches: ResourceCaches;
  /** `--enable-admission-plugins` (added to the defaults). */
  readonly enable?: readonly string[] | undefined;
  /** `--disable-admission-plugins`. */
  readonly disable?: readonly string[] | undefined;
  /** For ValidatingAdmissionPolicy's CEL `authorizer`. */
  readonly authorizer?: Authorizer | undefined;
}

/**
 * The server's admission: the plugin chain every write passes, and what keeps the state it relies
 * on (quota usage as objects go). Each namespace's `default` ServiceAccount is the controller
 * manager's `serviceaccount` loop's, as in Kubernetes, not the server's. The write handlers
 * call `admit` after decoding, patching and schema validation, and before storage.
 */
export class Admission {
  readonly #chain: AdmissionChain;
  readonly #client = new WebhookClient();
  readonly #quotaSync: QuotaUsageSync | undefined;
  readonly #env: AdmissionEnv;

  constructor(private readonly options: AdmissionOptions) {
    this.#env = {
      store: options.store,
      reader: options.reader,
      registry: options.registry,
      objects: new CachedObjects(options.caches, options.store),
      authorize: options.authorizer && celAuthorize(options.authorizer),
    };
    const unknown = [...(options.enable ?? []), ...(options.disable ?? [])].find((name) => !isAdmissionPluginName(name));
    if (unknown !== undefined) throw new Error(`unknown admission plugin ${JSON.stringify(unknown)}; known plugins: ${ADMISSION_PLUGINS.join(', ')}`);
    const names = enabledPlugins(options.enable, options.disable);
    this.#chain = new AdmissionChain(names.map((name) => createPlugin(name, this.#env, this.#client)));
    if (names.includes('ResourceQuota')) this.#quotaSync = new QuotaUsageSync(this.#env, options.caches);
  }

  /** The names of the plugins that run, in order. */
  get plugins(): readonly string[] {
    return this.#chain.plugins.map((p) => p.name);
  }

  /** Before serving (after the caches hold their first list). */
  async start(): Promise<void> {
    this.#quotaSync?.start();
  }

  async stop(): Promise<void> {
    this.#quotaSync?.stop();
    await this.#client.close();
  }

  /**
   * Runs the chain; returns the object to store (the mutated one), or throws the first refusal:
   * at once when no plugin had to wait for anything, else as a promise (chain.ts).
   * `revalidate` re-runs the handler's checks on an object a plugin changed.
   */
  admit(attrs: AdmissionAttributes, scope: AdmissionRequestScope, revalidate?: (object: ApiObject) => ApiObject): Admitted {
    return this.#chain.run(attrs, scope, revalidate);
  }
}
