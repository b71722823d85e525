import type { Registry } from 'prom-client';
import type { Client } from '../../client/index.js';
import type { CriClient } from '../cri/index.js';
import type { Pod } from '../../api/index.js';
import type { AgentRouteModule } from './route-module.js';
import type { AgentServerFlags } from './server-flags.js';

export type { AgentServerFlags } from './server-flags.js';

/** Everything `startAgentServer` takes: the flags, and the parts of the agent it serves from. */
export interface AgentServerOptions {
  readonly flags: AgentServerFlags;
  /** The node's name: the `name` of every SubjectAccessReview, and /stats/summary's nodeName. */
  readonly nodeName: string;
  /**
   * The node's addresses (`--node-ip`, the InternalIP it reports): written into a generated
   * certificate's SANs, so an API server given the certificate as `--node-agent-certificate-authority`
   * can verify it when it connects by address.
   */
  readonly nodeIPs?: readonly string[] | undefined;
  /** The runtime: container logs, /stats/summary, the container gauge of /metrics. */
  readonly cri: CriClient;
  /**
   * The pods the agent runs (/pods, /stats/summary's pod references); none when absent. The
   * pod workers' `AgentPodView` fits (the shape is spelled out so this folder does not depend on theirs).
   */
  readonly pods?: { pods(): readonly Pod[] } | undefined;
  /** The API server, for TokenReview and SubjectAccessReview; required by the webhook modes. */
  readonly client?: Client | undefined;
  /** The resolved configuration, served by /configz as `{"nodeagentconfig": …}`. */
  readonly config?: unknown;
  /** A registry the agent's workers fill (probe and sync counters): merged into /metrics. */
  readonly metrics?: Registry | undefined;
  /** Route modules served on the HTTPS port (the streaming routes: exec, attach, port-forward). */
  readonly routes?: readonly AgentRouteModule[] | undefined;
  /** The clock of the review caches (ms since the epoch); default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** pino options, or false (default) for none. */
  readonly logger?: boolean | object | undefined;
  /** Called once for each thing worth a warning (an unverified API server, ...). */
  readonly warn?: ((message: string) => void) | undefined;
}
