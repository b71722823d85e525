import type { Container, Pod } from '../../../src/api/index.js';

/** A pod of containers with these requests (= limits when `guaranteed`). */
export function podOf(uid: string, containers: readonly { name: string; cpu?: string; memory?: string; hugepages2Mi?: string }[], options: { guaranteed?: boolean; init?: readonly { name: string; cpu?: string; memory?: string }[] } = {}): Pod {
  const guaranteed = options.guaranteed ?? true;
  const container = (c: { name: string; cpu?: string; memory?: string; hugepages2Mi?: string }): Container => {
    const amounts: Record<string, string> = { cpu: c.cpu ?? '100m', memory: c.memory ?? '64Mi', ...(c.hugepages2Mi ? { 'hugepages-2Mi': c.hugepages2Mi } : {}) };
    return { name: c.name, image: 'busybox', resources: guaranteed ? { requests: amounts, limits: amounts } : { requests: amounts } };
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: uid, namespace: 'default', uid },
    spec: { containers: containers.map(container), ...(options.init ? { initContainers: options.init.map(container) } : {}) },
  };
}
