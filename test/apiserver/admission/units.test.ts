import { describe, expect, it } from 'vitest';
import { builtinRegistry, type RuleWithOperations } from '../../../src/api/index.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/attributes.js';
import { enabledPlugins } from '../../../src/apiserver/admission/index.js';
import { namespaceSelected, objectSelected, ruleMatches } from '../../../src/apiserver/admission/webhook/matching.js';
import { apiServerConfig, apiServerFlags } from '../../../src/cli/apiserver-flags.js';
import { FlagError, parseFlags } from '../../../src/cli/flags.js';

const registry = builtinRegistry();
const type = (group: string, version: string, resource: string) => registry.lookup(group, version, resource)!;

function attrs(init: Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'type'>): AdmissionAttributes {
  return {
    operation: 'CREATE',
    subresource: '',
    namespace: init.type.namespaced ? 'default' : '',
    name: 'x',
    object: { metadata: { name: 'x' } },
    oldObject: undefined,
    dryRun: false,
    options: undefined,
    user: undefined,
    ...init,
  };
}

const rule = (resources: string[], extra: Partial<RuleWithOperations> = {}): RuleWithOperations => ({
  operations: ['*'],
  apiGroups: ['*'],
  apiVersions: ['*'],
  resources,
  scope: '*',
  ...extra,
});

describe('webhook rules', () => {
  const pods = type('', 'v1', 'pods');
  const deployments = type('apps', 'v1', 'deployments');
  it.each([
    [['pods'], '', true],
    [['pods'], 'status', false],
    [['*'], '', true],
    [['*'], 'status', false],
    [['*/status'], 'status', true],
    [['*/status'], '', false],
    [['pods/*'], 'log', true],
    [['*/*'], 'eviction', true],
    // A subresource wildcard also covers the main resource, as Kubernetes' matcher has it.
    [['*/*'], '', true],
    [['pods/*'], '', true],
    [['deployments'], '', false],
  ])('resources %j on pods with subresource %j: %s', (resources, subresource, expected) => {
    expect(ruleMatches(rule(resources), attrs({ type: pods, subresource }))).toBe(expected);
  });

  it('matches groups the svc way and the upstream way', () => {
    const rbac = type('rbac.authorization.svc.io', 'v1', 'roles');
    expect(ruleMatches(rule(['roles'], { apiGroups: ['rbac.authorization.k8s.io'] }), attrs({ type: rbac }))).toBe(true);
    expect(ruleMatches(rule(['roles'], { apiGroups: ['rbac.authorization.svc.io'] }), attrs({ type: rbac }))).toBe(true);
    expect(ruleMatches(rule(['deployments'], { apiGroups: [''] }), attrs({ type: deployments }))).toBe(false);
  });

  it('honours operations, versions and scope', () => {
    expect(ruleMatches(rule(['pods'], { operations: ['UPDATE'] }), attrs({ type: pods }))).toBe(false);
    expect(ruleMatches(rule(['pods'], { apiVersions: ['v2'] }), attrs({ type: pods }))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), attrs({ type: pods }))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Namespaced' }), attrs({ type: type('', 'v1', 'nodes') }))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), attrs({ type: type('', 'v1', 'nodes') }))).toBe(true);
  });
});

describe('webhook selectors', () => {
  const pods = type('', 'v1', 'pods');
  const namespaces = type('', 'v1', 'namespaces');
  const selector = { matchLabels: { team: 'a' } };
  it('match the new or the old object, so a DELETE is selected by what is stored', () => {
    expect(objectSelected(selector, attrs({ type: pods, object: undefined, oldObject: { metadata: { labels: { team: 'a' } } } }))).toBe(true);
    expect(objectSelected(selector, attrs({ type: pods, object: { metadata: { labels: { team: 'b' } } } }))).toBe(false);
    expect(objectSelected({}, attrs({ type: pods }))).toBe(true);
  });
  it('match a Namespace by its own labels, and always select other cluster-scoped objects', () => {
    expect(namespaceSelected(selector, attrs({ type: namespaces, object: { metadata: { labels: { team: 'a' } } } }), undefined)).toBe(true);
    expect(namespaceSelected(selector, attrs({ type: namespaces }), undefined)).toBe(false);
    expect(namespaceSelected(selector, attrs({ type: type('', 'v1', 'nodes') }), undefined)).toBe(true);
    expect(namespaceSelected(selector, attrs({ type: pods }), { metadata: { name: 'default', labels: { team: 'a' } } })).toBe(true);
  });
});

describe('admission plugin flags', () => {
  const config = (argv: string[]) => {
    const parsed = parseFlags(apiServerFlags, argv);
    if (parsed.help) throw new Error('unexpected help');
    return apiServerConfig(parsed.values);
  };
  it('turns every plugin on by default, in their fixed order', () => {
    expect(enabledPlugins()).toEqual(['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'CertificateApproval', 'CertificateSigning', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
    expect(enabledPlugins(['ResourceQuota'], ['LimitRanger', 'NamespaceLifecycle'])).toEqual(['ServiceAccount', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'CertificateApproval', 'CertificateSigning', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
  });
  it('reads the lists', () => {
    expect(config(['--disable-admission-plugins=LimitRanger,ResourceQuota']).admissionPlugins).toEqual({ enable: [], disable: ['LimitRanger', 'ResourceQuota'] });
  });
  it('refuses an unknown plugin, naming the known ones', () => {
    expect(() => config(['--enable-admission-plugins=PodSecurity'])).toThrow(FlagError);
    expect(() => config(['--enable-admission-plugins=PodSecurity'])).toThrow(/unknown admission plugin "PodSecurity"; known plugins: NamespaceLifecycle/);
  });
  it('refuses a plugin both enabled and disabled', () => {
    expect(() => config(['--enable-admission-plugins=LimitRanger', '--disable-admission-plugins=LimitRanger'])).toThrow(/LimitRanger is both enabled and disabled/);
  });
});
