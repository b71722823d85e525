import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

/** Issue #29's hostile inputs and issue #27's boolean spellings, sent by kubectl. */
describe('kubectl against svc-apiserver with hostile inputs', () => {
  const k = useKubectlServer('svc-kubectl-hostile-');
  const CM = '/api/v1/namespaces/default/configmaps';

  const names = async () => (await kubectl(k.config, ['get', 'configmaps', '-o', 'name'])).stdout.split('\n').filter((line) => line.startsWith('configmap/'));

  it('deletes nothing with an empty name: DELETE …/configmaps/ is NotFound', async () => {
    for (const name of ['one', 'two']) expect((await kubectl(k.config, ['create', 'configmap', name, '--from-literal=a=1'])).code).toBe(0);
    const before = await names();
    expect(before).toEqual(expect.arrayContaining(['configmap/one', 'configmap/two']));
    for (const path of [`${CM}/`, '/api/v1/namespaces//configmaps', '/api/v1/namespaces/']) {
      const res = await kubectl(k.config, ['delete', '--raw', path]);
      expect(res.code, path).not.toBe(0);
      expect(res.stderr, path).toMatch(/NotFound|could not find the requested resource/);
    }
    expect(await names()).toEqual(before);
    expect((await kubectl(k.config, ['get', 'namespace', 'default'])).code).toBe(0);
  });

  it('reads pretty=True and watch=True as a Python client spells them', async () => {
    const pretty = await kubectl(k.config, ['get', '--raw', `${CM}?pretty=True`]);
    expect(pretty.code, pretty.stderr).toBe(0);
    expect(pretty.stdout).toContain('\n  "kind": "ConfigMapList"');
    const watch = await kubectl(k.config, ['get', '--raw', `${CM}?watch=True&timeoutSeconds=1&fieldSelector=metadata.name%3Done`]);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).toContain('"type":"ADDED"');
    const bad = await kubectl(k.config, ['get', '--raw', `${CM}?pretty=yes`]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('BadRequest');
  });

  it('stores __proto__ and constructor as ConfigMap keys', async () => {
    const created = await kubectl(k.config, ['create', 'configmap', 'proto', '--from-literal=__proto__=p', '--from-literal=constructor=c']);
    expect(created.code, created.stderr).toBe(0);
    const data = await kubectl(k.config, ['get', 'configmap', 'proto', '-o', 'jsonpath={.data}']);
    expect(JSON.parse(data.stdout)).toEqual(JSON.parse('{"__proto__":"p","constructor":"c"}'));
    const patched = await kubectl(k.config, ['patch', 'configmap', 'proto', '--type=json', '-p', '[{"op":"replace","path":"/data/__proto__","value":"q"}]']);
    expect(patched.code, patched.stderr).toBe(0);
    const after = await kubectl(k.config, ['get', 'configmap', 'proto', '-o', 'jsonpath={.data.__proto__}']);
    expect(after.stdout).toBe('q');
  });

  it('refuses a JSON patch moving /metadata into its own child, and a selector operand past 64 bits', async () => {
    const rv = (await kubectl(k.config, ['get', 'configmap', 'one', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    const move = await kubectl(k.config, ['patch', 'configmap', 'one', '--type=json', '-p', '[{"op":"move","from":"/metadata","path":"/metadata/x"}]']);
    expect(move.code).not.toBe(0);
    expect(move.stderr).toContain('its own child');
    expect((await kubectl(k.config, ['get', 'configmap', 'one', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout).toBe(rv);
    const selector = await kubectl(k.config, ['get', 'configmaps', '-l', 'a>99999999999999999999999']);
    expect(selector.code).not.toBe(0);
    expect(selector.stderr).toContain('64-bit integer');
  });
});
