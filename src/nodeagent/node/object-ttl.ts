import { NODE_TTL_ANNOTATION } from '../../api/index.js';

/**
 * How long the agent may cache its pods' ConfigMaps and Secrets: the ttl controller's
 * `node.alpha.kubernetes.io/ttl` on the Node, in ms. No annotation (a cluster without the ttl
 * controller, or a Node not yet annotated) or a bad one is 0: every read goes to the API server.
 * (The kubelet assumes 1 min then; 0 keeps small clusters and tests seeing a change at the next sync.)
 */
export function nodeObjectTtlMs(node: { readonly metadata: { readonly annotations?: Readonly<Record<string, string>> | undefined } } | undefined): number {
  const raw = node?.metadata.annotations?.[NODE_TTL_ANNOTATION];
  const seconds = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : 0;
}
