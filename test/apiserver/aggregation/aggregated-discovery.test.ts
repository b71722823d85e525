import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { eventually } from '../crd/fixtures.js';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

const remoteApiService = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: `${version}.${group}` },
  spec: { group, version, service: { namespace: 'default', name: 'nowhere' }, insecureSkipTLSVerify: true, groupPriorityMinimum, versionPriority },
});

describe('remote group-versions in discovery', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer('memory');
  });
  afterEach(async () => server.close());

  it('lists remote groups after the local ones, by group priority, versions by version priority', async () => {
    for (const body of [
      remoteApiService('low.example.com', 'v1', 100, 10),
      remoteApiService('high.example.com', 'v1beta1', 2000, 10),
      remoteApiService('high.example.com', 'v1', 2000, 20),
      remoteApiService('high.example.com', 'v2alpha1', 2000, 20),
    ]) {
      expect((await server.call('POST', APISERVICES, body)).status).toBe(201);
    }
    let groups: any[] = [];
    await eventually(async () => {
      groups = (await server.call('GET', '/apis')).body.groups;
      return groups.some((g) => g.name === 'low.example.com') && groups.find((g) => g.name === 'high.example.com')?.versions.length === 3;
    }, 'the remote groups are listed');
    expect(groups.slice(-2).map((g) => g.name)).toEqual(['high.example.com', 'low.example.com']);
    expect(groups.at(-2)).toEqual({
      name: 'high.example.com',
      versions: [
        { groupVersion: 'high.example.com/v1', version: 'v1' },
        { groupVersion: 'high.example.com/v2alpha1', version: 'v2alpha1' },
        { groupVersion: 'high.example.com/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'high.example.com/v1', version: 'v1' },
    });
    const group = await server.call('GET', '/apis/high.example.com');
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'high.example.com', preferredVersion: { version: 'v1' } });
    expect((await server.call('POST', '/apis/high.example.com', {})).status).toBe(405);
  });

  it('takes a caBundle that is no PEM for a failed check, and never dials with it', async () => {
    const body = remoteApiService('badca.example.com', 'v1', 100, 10);
    const { insecureSkipTLSVerify: _skip, ...spec } = body.spec;
    const created = await server.call('POST', APISERVICES, { ...body, spec: { ...spec, caBundle: Buffer.from('not a certificate').toString('base64') } });
    expect(created.status).toBe(201);
    let condition: any;
    await eventually(async () => {
      condition = (await server.call('GET', `${APISERVICES}/v1.badca.example.com`)).body.status?.conditions?.[0];
      return condition !== undefined;
    }, 'the check ran');
    expect(condition).toMatchObject({ type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'spec.caBundle holds no PEM certificate' });
    const proxied = await server.call('GET', '/apis/badca.example.com/v1/things');
    expect(proxied.status).toBe(503);
    expect(proxied.body.message).toContain('spec.caBundle');
  });

  it('answers 503 for an unavailable remote, and goes back to 404 once its APIService is deleted', async () => {
    expect((await server.call('POST', APISERVICES, remoteApiService('gone.example.com', 'v1', 100, 10))).status).toBe(201);
    await eventually(async () => (await server.call('GET', `${APISERVICES}/v1.gone.example.com`)).body.status?.conditions?.[0]?.reason === 'ServiceNotFound', 'the check ran');
    const unavailable = await server.call('GET', '/apis/gone.example.com/v1/things');
    expect(unavailable.status).toBe(503);
    expect(unavailable.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(unavailable.body.message).toContain('ServiceNotFound');
    expect((await server.call('DELETE', `${APISERVICES}/v1.gone.example.com`)).status).toBe(200);
    await eventually(async () => (await server.call('GET', '/apis/gone.example.com/v1/things')).status === 404, 'the group-version is no longer proxied');
    expect((await server.call('GET', '/apis')).body.groups.some((g: any) => g.name === 'gone.example.com')).toBe(false);
  });
});
