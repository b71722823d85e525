/** Where a node's agent listens, as its Node object advertises it. */
export interface NodeAgentEndpoint {
  readonly node: string;
  /** The node's InternalIP (else its first address); undefined before the agent reported any. */
  readonly address: string | undefined;
  /** `status.daemonEndpoints.kubeletEndpoint.Port`; undefined before the agent reported it. */
  readonly port: number | undefined;
}

/** What a request to a node agent is about. */
export interface NodeAgentTarget {
  /** `log`, `exec`, `attach`, `portforward`, `proxy`. */
  readonly subresource: string;
  readonly endpoint: NodeAgentEndpoint;
  readonly pod?: {
    readonly namespace: string;
    readonly name: string;
    readonly uid: string | undefined;
    /** The names of its containers (first), init containers and ephemeral containers. */
    readonly containers?: readonly string[] | undefined;
    /** How many of `containers` are regular ones (the default container is chosen among them). */
    readonly regular?: number | undefined;
  };
}
