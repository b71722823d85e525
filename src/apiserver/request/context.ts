import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceRegistry, ResourceType } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import type { Admission } from '../admission/index.js';
import type { ContinueTokens } from '../continue-token.js';
import type { ObjectReader } from '../object-reader.js';
import type { RequestInfo } from '../request-info.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { Renamer } from '../upstream-names.js';
import type { WatchSettings } from './settings.js';
import type { ServiceAllocator } from '../services/index.js';

/** Everything a verb handler needs, resolved once per request by the resource router. */
export interface HandlerContext {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly registry: ResourceRegistry;
  readonly caches: ResourceCaches;
  readonly tokens: ContinueTokens;
  readonly watch: WatchSettings;
  /** The admission chain every write passes before storage. */
  readonly admission: Admission;
  /** Enabled feature gates (absent: the gate's default). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Cluster IPs and NodePorts of Services (every write of a Service goes through it). */
  readonly services?: ServiceAllocator | undefined;
  readonly type: ResourceType;
  readonly info: RequestInfo;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /**
   * Set when the request named its group the upstream way (`*.k8s.io`): stamps the answer's
   * apiVersions with that name (src/apiserver/upstream-names.ts).
   */
  readonly rename?: Renamer | undefined;
}

export type Handler = (ctx: HandlerContext) => Promise<unknown>;
