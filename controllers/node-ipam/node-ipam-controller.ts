import { Observable } from 'rxjs';
import { isStatusError, type Node } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { requeueAfter } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import type { CidrSet } from './cidr-set.js';

export interface NodeIpamOptions {
  /** One set per family (`clusterCidrSets`), IPv4 or IPv6 first as `--cluster-cidr` lists them. */
  readonly sets: readonly CidrSet[];
  /** How long a node waits before trying again when a range is full. Default 10 s. */
  readonly fullRetryMs?: number;
}

const NAME = 'node-ipam-controller';

const cidrsOf = (node: Node): string[] => node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);

/**
 * The node IPAM controller with the range allocator: every Node without pod CIDRs gets one block
 * of each cluster CIDR (`spec.podCIDRs`, and `spec.podCIDR` the first of them), and a deleted
 * Node's blocks are free again. What is taken is not stored anywhere but on the Nodes: the first
 * reconcile (the cache synced) marks every Node's blocks taken before any is handed out, so a
 * restarted controller gives no block twice and changes no Node's. A full range leaves the Node
 * without (an Event CIDRNotAvailable says so) and tries again later.
 */
export function nodeIpamController(ctx: ControllerContext, options: NodeIpamOptions): Observable<ControllerResult<unknown>> {
  const nodes = ctx.informers.informer(builtin.nodes);
  const held = new Map<string, string[]>();
  let rebuilt = false;
  const occupy = (node: Node) => {
    const cidrs = cidrsOf(node);
    if (cidrs.length === 0) return;
    for (const cidr of cidrs) options.sets.find((set) => set.holdsFamily(cidr))?.occupy(cidr);
    held.set(node.metadata.name!, cidrs);
  };
  const release = (name: string) => {
    for (const cidr of held.get(name) ?? []) options.sets.find((set) => set.holdsFamily(cidr))?.release(cidr);
    held.delete(name);
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: nodes,
    stop$: ctx.stop$,
    reconcile: async (name) => {
      if (!rebuilt) {
        for (const node of nodes.store.list()) occupy(node);
        rebuilt = true;
      }
      const node = nodes.store.get(name);
      if (!node) return release(name);
      if (cidrsOf(node).length > 0) return occupy(node);
      if (held.has(name)) release(name);
      const cidrs: string[] = [];
      for (const set of options.sets) {
        const cidr = set.allocate();
        if (cidr === undefined) {
          for (const [i, taken] of cidrs.entries()) options.sets[i]!.release(taken);
          ctx.events.record({ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
          return requeueAfter(options.fullRetryMs ?? 10_000);
        }
        cidrs.push(cidr);
      }
      try {
        await ctx.client.patch(builtin.nodes, name, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { podCIDR: cidrs[0], podCIDRs: cidrs } });
        held.set(name, cidrs);
      } catch (error) {
        for (const [i, taken] of cidrs.entries()) options.sets[i]!.release(taken);
        // Gone: nothing to do; changed meanwhile: the update event brings it back.
        if (isStatusError(error, 'NotFound') || isStatusError(error, 'Conflict')) return;
        throw error;
      }
    },
  });
}
