import type { Node, Pod } from '../../src/api/index.js';
import { NodeInfo } from './node-info.js';
import { podInfo, podKey, type PodInfo } from './pod-info.js';

/**
 * What the scheduler knows is where: every node, and every pod bound to one — plus the pods it has
 * itself decided on but the API server has not yet confirmed ("assumed"). A pod is assumed the
 * moment it is placed, before its binding is sent, so the next pod already sees the node's
 * resources and ports as taken: two pods in flight never overcommit a node. The binding's watch
 * event confirms the assumption; a failed binding forgets it.
 */
export class SchedulerCache {
  readonly #nodes = new Map<string, NodeInfo>();
  /** Names of the nodes that have a Node object, in insertion order (the search rotates over it). */
  #nodeNames: string[] = [];
  #nodeInfos: NodeInfo[] = [];
  #nodeNamesStale = false;
  /** Where each known pod is (bound or assumed). */
  readonly #podNode = new Map<string, string>();
  readonly #assumed = new Set<string>();

  #info(name: string): NodeInfo {
    let info = this.#nodes.get(name);
    if (!info) {
      info = new NodeInfo(name);
      this.#nodes.set(name, info);
    }
    return info;
  }

  /** Nodes that exist (have a Node object), in a stable order. */
  nodeNames(): readonly string[] {
    this.#refreshNodeList();
    return this.#nodeNames;
  }

  /** The same nodes' infos, in the same order: the node search walks these without a lookup by name. */
  nodeInfos(): readonly NodeInfo[] {
    this.#refreshNodeList();
    return this.#nodeInfos;
  }

  #refreshNodeList(): void {
    if (!this.#nodeNamesStale) return;
    this.#nodeInfos = [...this.#nodes.values()].filter((n) => n.node !== undefined);
    this.#nodeNames = this.#nodeInfos.map((n) => n.name);
    this.#nodeNamesStale = false;
  }

  node(name: string): NodeInfo | undefined {
    const info = this.#nodes.get(name);
    return info?.node ? info : undefined;
  }

  get nodeCount(): number {
    return this.nodeNames().length;
  }

  upsertNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const info = this.#info(name);
    if (!info.node) this.#nodeNamesStale = true;
    info.setNode(node);
  }

  removeNode(name: string): void {
    const info = this.#nodes.get(name);
    if (!info) return;
    info.setNode(undefined);
    this.#nodeNamesStale = true;
    // Pods still bound there keep their entry until their own deletion arrives.
    if (info.podCount === 0) this.#nodes.delete(name);
  }

  /** A bound pod as the API server reports it (added or changed): confirms an assumption. */
  upsertBoundPod(pod: Pod): void {
    const nodeName = pod.spec.nodeName;
    if (!nodeName) return;
    const key = podKey(pod);
    this.#assumed.delete(key);
    const previous = this.#podNode.get(key);
    if (previous !== undefined && previous !== nodeName) this.#removeFrom(previous, key);
    // Finished pods hold nothing: kube-scheduler's cache drops them too.
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
      if (previous === nodeName) this.#removeFrom(nodeName, key);
      return;
    }
    this.#info(nodeName).addPod(podInfo(pod));
    this.#podNode.set(key, nodeName);
  }

  removeBoundPod(pod: Pod): void {
    const key = podKey(pod);
    const nodeName = this.#podNode.get(key);
    if (nodeName !== undefined) this.#removeFrom(nodeName, key);
    this.#assumed.delete(key);
  }

  /** Places `info` on `nodeName` ahead of the API server's confirmation. */
  assume(info: PodInfo, nodeName: string): void {
    if (this.#podNode.has(info.key)) throw new Error(`pod ${info.key} is already in the cache`);
    this.#info(nodeName).addPod(info);
    this.#podNode.set(info.key, nodeName);
    this.#assumed.add(info.key);
  }

  /** Undoes `assume` (the binding failed); a pod the API server has confirmed meanwhile stays. */
  forget(key: string): void {
    if (!this.#assumed.delete(key)) return;
    const nodeName = this.#podNode.get(key);
    if (nodeName !== undefined) this.#removeFrom(nodeName, key);
  }

  isAssumed(key: string): boolean {
    return this.#assumed.has(key);
  }

  /** Whether the pod is bound or assumed somewhere. */
  has(key: string): boolean {
    return this.#podNode.has(key);
  }

  #removeFrom(nodeName: string, key: string): void {
    const info = this.#nodes.get(nodeName);
    this.#podNode.delete(key);
    if (!info) return;
    info.removePod(key);
    if (!info.node && info.podCount === 0) this.#nodes.delete(nodeName);
  }
}
