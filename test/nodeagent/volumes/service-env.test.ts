import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod, Service } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { podObjectReader, resolveEnv, type PodObjectReader } from '../../../src/nodeagent/index.js';
import { startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
const ips: Record<string, string> = {};

const service = (namespace: string, name: string, spec: NonNullable<Service['spec']>): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec,
});

beforeAll(async () => {
  api = await startVolumesApiServer();
  for (const name of ['apps', 'other']) await api.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const s of [
    service('default', 'kubernetes', { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] }),
    service('apps', 'web-api', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }, { name: 'dns-udp', port: 53, protocol: 'UDP' }] }),
    service('apps', 'headless', { clusterIP: 'None', selector: { app: 'h' }, ports: [{ port: 80 }] }),
    service('other', 'elsewhere', { clusterIP: '10.96.0.30', ports: [{ port: 80 }] }),
    service('other', 'v6', { clusterIP: 'fd00::10', ipFamilies: ['IPv6'], ports: [{ port: 8080 }] }),
  ]) {
    const created = await api.client.create(builtin.services, s);
    ips[`${s.metadata.namespace}/${s.metadata.name}`] = created.spec?.clusterIP ?? '';
  }
});
afterAll(async () => api?.close());

function pod(namespace: string, extra: Partial<Pod['spec']> = {}, env: { name: string; value: string }[] = []): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace, uid: 'u' }, spec: { containers: [{ name: 'c', image: 'busybox', env }], ...extra } };
}

async function envOf(p: Pod, objects: PodObjectReader = podObjectReader(api.client)): Promise<Record<string, string>> {
  const env = await resolveEnv({ pod: p, container: p.spec.containers[0]!, nodeName: 'n', hostIP: '10.0.0.1', podIP: undefined, podIPs: [], nodeAllocatable: {}, objects });
  return Object.fromEntries(env.map((e) => [e.key, e.value]));
}

describe('service links', () => {
  it("name the namespace's Services and the master Service, as Kubernetes does", async () => {
    const web = ips['apps/web-api']!;
    const master = ips['default/kubernetes']!;
    expect([web, master]).toEqual(['10.96.0.20', '10.96.0.1']);
    expect(await envOf(pod('apps'))).toEqual({
      KUBERNETES_SERVICE_HOST: master,
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: `tcp://${master}:443`,
      KUBERNETES_PORT_443_TCP: `tcp://${master}:443`,
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: master,
      // svc's spelling of the API server's address, which Client.fromEnv reads first.
      SVC_SERVICE_HOST: master,
      SVC_SERVICE_PORT: '443',
      WEB_API_SERVICE_HOST: web,
      WEB_API_SERVICE_PORT: '80',
      WEB_API_SERVICE_PORT_HTTP: '80',
      WEB_API_SERVICE_PORT_DNS_UDP: '53',
      WEB_API_PORT: `tcp://${web}:80`,
      WEB_API_PORT_80_TCP: `tcp://${web}:80`,
      WEB_API_PORT_80_TCP_PROTO: 'tcp',
      WEB_API_PORT_80_TCP_PORT: '80',
      WEB_API_PORT_80_TCP_ADDR: web,
      WEB_API_PORT_53_UDP: `udp://${web}:53`,
      WEB_API_PORT_53_UDP_PROTO: 'udp',
      WEB_API_PORT_53_UDP_PORT: '53',
      WEB_API_PORT_53_UDP_ADDR: web,
    });
  });

  it('enableServiceLinks: false keeps only the master Service', async () => {
    expect(Object.keys(await envOf(pod('apps', { enableServiceLinks: false }))).every((k) => k.startsWith('KUBERNETES_') || k.startsWith('SVC_SERVICE_'))).toBe(true);
  });

  it('come after the container variables, never replace them, and expand in values', async () => {
    const env = await envOf(pod('apps', {}, [{ name: 'WEB_API_SERVICE_PORT', value: 'mine' }, { name: 'URL', value: 'http://$(WEB_API_SERVICE_HOST):$(WEB_API_SERVICE_PORT_HTTP)' }]));
    expect(env['WEB_API_SERVICE_PORT']).toBe('mine');
    expect(env['URL']).toBe(`http://${ips['apps/web-api']}:80`);
    const keys = Object.keys(env);
    expect(keys.slice(0, 2)).toEqual(['WEB_API_SERVICE_PORT', 'URL']);
  });

  it('bracket an IPv6 cluster IP in the URLs', async () => {
    const env = await envOf(pod('other'));
    expect(env['V6_SERVICE_HOST']).toBe('fd00::10');
    expect(env['V6_PORT']).toBe('tcp://[fd00::10]:8080');
    expect(env['V6_PORT_8080_TCP_ADDR']).toBe('fd00::10');
    expect(env['ELSEWHERE_SERVICE_HOST']).toBe('10.96.0.30');
    expect(env['WEB_API_SERVICE_HOST']).toBeUndefined();
  });

  it('a reader without services gives none', async () => {
    const { services: _, ...withoutServices } = podObjectReader(api.client);
    expect(await envOf(pod('apps'), withoutServices)).toEqual({});
  });
});
