/**
 * The rules of images that need no runtime: name normalization, the pull policy default, pull
 * secrets to CRI credentials, and the pull back-off sequence.
 */
import { describe, expect, it } from 'vitest';
import type { Secret } from '../../../src/api/index.js';
import { isStatusError } from '../../../src/api/index.js';
import {
  DOCKER_CFG_TYPE,
  DOCKER_CONFIG_JSON_TYPE,
  PullBackOff,
  credentialsForImage,
  effectivePullPolicy,
  parseImageName,
} from '../../../src/nodeagent/index.js';

describe('image names', () => {
  it.each([
    ['busybox', 'docker.io', 'library/busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io', 'library/busybox', 'docker.io/library/busybox:1.36'],
    ['library/busybox', 'docker.io', 'library/busybox', 'docker.io/library/busybox:latest'],
    ['someone/tool:v2', 'docker.io', 'someone/tool', 'docker.io/someone/tool:v2'],
    ['index.docker.io/someone/tool', 'docker.io', 'someone/tool', 'docker.io/someone/tool:latest'],
    ['svc.local/busybox:latest', 'svc.local', 'busybox', 'svc.local/busybox:latest'],
    ['localhost/app', 'localhost', 'app', 'localhost/app:latest'],
    ['localhost:5000/team/app:1.0', 'localhost:5000', 'team/app', 'localhost:5000/team/app:1.0'],
    ['registry.example.com:443/a/b/c', 'registry.example.com:443', 'a/b/c', 'registry.example.com:443/a/b/c:latest'],
    ['my-registry.io/a__b/c.d-e', 'my-registry.io', 'a__b/c.d-e', 'my-registry.io/a__b/c.d-e:latest'],
  ])('%s is %s / %s, resolved as %s', (image, registry, repository, reference) => {
    const name = parseImageName(image);
    expect(name).toMatchObject({ registry, repository, reference });
  });

  it('keeps a digest and adds no tag to it', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageName(`busybox@${digest}`)).toMatchObject({ tag: undefined, digest, reference: `docker.io/library/busybox@${digest}` });
    expect(parseImageName(`busybox:1@${digest}`)).toMatchObject({ tag: '1', digest, reference: `docker.io/library/busybox:1@${digest}` });
  });

  it.each([
    ['', 'at least one component'],
    ['Busybox', 'lowercase'],
    ['docker.io/Library/busybox', 'lowercase'],
    ['busybox:', 'invalid reference format'],
    ['busybox:bad/tag', 'invalid reference format'],
    ['busybox:-lead', 'invalid reference format'],
    ['busybox@sha256:short', 'invalid digest format'],
    ['a//b', 'invalid reference format'],
    ['bad_-name', 'invalid reference format'],
    [' busybox', 'invalid reference format'],
    ['exa mple.com/app', 'invalid reference format'],
    [`docker.io/${'a'.repeat(260)}`, 'must not be more than 255'],
  ])('%j is InvalidImageName (%s)', (image, why) => {
    let caught: unknown;
    try {
      parseImageName(image);
    } catch (error) {
      caught = error;
    }
    expect(isStatusError(caught, 'InvalidImageName')).toBe(true);
    expect((caught as Error).message).toContain(why);
    expect((caught as Error).message).toContain(`couldn't parse image name "${image}"`);
  });
});

describe('pull policy default', () => {
  const policy = (image: string, imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never') =>
    effectivePullPolicy(imagePullPolicy ? { imagePullPolicy } : {}, parseImageName(image));

  it('no tag or :latest ⇒ Always', () => {
    expect(policy('busybox')).toBe('Always');
    expect(policy('busybox:latest')).toBe('Always');
    expect(policy('localhost:5000/app')).toBe('Always');
  });
  it('any other tag, or a digest, ⇒ IfNotPresent', () => {
    expect(policy('busybox:1.36')).toBe('IfNotPresent');
    expect(policy(`busybox@sha256:${'b'.repeat(64)}`)).toBe('IfNotPresent');
    expect(policy('localhost:5000/app:v1')).toBe('IfNotPresent');
  });
  it('an explicit policy wins', () => {
    expect(policy('busybox', 'Never')).toBe('Never');
    expect(policy('busybox:1', 'Always')).toBe('Always');
    expect(policy('busybox:latest', 'IfNotPresent')).toBe('IfNotPresent');
  });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

function dockerConfigJson(name: string, auths: Record<string, Record<string, string>>): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, type: DOCKER_CONFIG_JSON_TYPE, data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } };
}
function dockerCfg(name: string, entries: Record<string, Record<string, string>>): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, type: DOCKER_CFG_TYPE, data: { '.dockercfg': b64(JSON.stringify(entries)) } };
}

describe('pull secrets to AuthConfig', () => {
  const secrets = [
    dockerConfigJson('hub', { 'https://index.docker.io/v1/': { auth: b64('hubuser:hubpass') } }),
    dockerConfigJson('private', {
      'registry.example.com': { username: 'alice', password: 's3cret', auth: b64('alice:s3cret') },
      'registry.example.com/team': { username: 'team', password: 'teampass' },
      'localhost:5000': { identitytoken: 'id-token' },
    }),
    dockerCfg('legacy', { '*.corp.example': { username: 'bob', password: 'pw' } }),
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'opaque' }, type: 'Opaque', data: { '.dockerconfigjson': b64('{"auths":{"registry.example.com":{"username":"x"}}}') } } satisfies Secret,
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'broken' }, type: DOCKER_CONFIG_JSON_TYPE, data: { '.dockerconfigjson': b64('{not json') } } satisfies Secret,
  ];
  const auth = (image: string) => credentialsForImage(parseImageName(image), secrets);

  it('Docker Hub credentials (stored under https://index.docker.io/v1/) apply to short names; auth is decoded into username and password', () => {
    expect(auth('busybox')).toEqual([
      { username: 'hubuser', password: 'hubpass', auth: b64('hubuser:hubpass'), serverAddress: '', identityToken: '', registryToken: '' },
    ]);
  });
  it('the most specific path prefix comes first, then the registry-wide entry', () => {
    expect(auth('registry.example.com/team/app:1').map((a) => a.username)).toEqual(['team', 'alice']);
    expect(auth('registry.example.com/other/app:1').map((a) => a.username)).toEqual(['alice']);
    // `team` is a prefix by path component, not by string.
    expect(auth('registry.example.com/teamwork/app').map((a) => a.username)).toEqual(['alice']);
  });
  it('the port must match; identity tokens pass through', () => {
    expect(auth('localhost:5000/app')).toEqual([{ username: '', password: '', auth: '', serverAddress: '', identityToken: 'id-token', registryToken: '' }]);
    expect(auth('localhost:5001/app')).toEqual([]);
  });
  it('.dockercfg secrets and globs per DNS label', () => {
    expect(auth('eu.corp.example/app').map((a) => a.username)).toEqual(['bob']);
    expect(auth('a.b.corp.example/app')).toEqual([]);
  });
  it('other registries, other secret types and unreadable secrets give nothing', () => {
    expect(auth('quay.io/app')).toEqual([]);
    expect(credentialsForImage(parseImageName('registry.example.com/x'), secrets.slice(3))).toEqual([]);
  });
});

describe('pull back-off', () => {
  it('10 s, doubling to 5 min, starting over after a quiet spell of twice the maximum', () => {
    let now = 1_000_000;
    const backOff = new PullBackOff({ now: () => now });
    expect(backOff.remainingMs('k')).toBe(0);
    const delays = Array.from({ length: 7 }, () => backOff.failed('k'));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(backOff.remainingMs('k')).toBe(300_000);
    now += 299_999;
    expect(backOff.remainingMs('k')).toBe(1);
    now += 1;
    expect(backOff.remainingMs('k')).toBe(0);
    now += 600_001;
    expect(backOff.failed('k')).toBe(10_000);
    backOff.succeeded('k');
    expect(backOff.remainingMs('k')).toBe(0);
    expect(backOff.remainingMs('other')).toBe(0);
  });
});
