import { defaultTolerationSeconds } from './default-toleration-seconds.js';
import { claimResize } from './claim-resize.js';
import { certificateApproval, certificateSigning } from './certificate-signers.js';
import { defaultStorageClass } from './default-storage-class.js';
import { storageObjectInUseProtection } from './storage-object-in-use-protection.js';
import { limitRanger } from './limit-ranger.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import type { AdmissionEnv, AdmissionPlugin } from './plugin.js';
import { resourceQuota } from './resource-quota.js';
import { serviceAccountPlugin } from './service-account.js';
import type { WebhookClient } from './webhook/call.js';
import { mutatingWebhooks, validatingWebhooks } from './webhook/webhooks.js';
import { validatingAdmissionPolicies } from './policy/validating-admission-policy.js';

/**
 * The admission plugins svc has, in the order they run (Kubernetes' recommended order); all are
 * on by default. `--enable-admission-plugins` / `--disable-admission-plugins` choose among them;
 * the order never depends on how the flags list them.
 */
export const ADMISSION_PLUGINS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'CertificateApproval',
  'CertificateSigning',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
] as const;

export type AdmissionPluginName = (typeof ADMISSION_PLUGINS)[number];

export const DEFAULT_ADMISSION_PLUGINS: readonly AdmissionPluginName[] = ADMISSION_PLUGINS;

export const isAdmissionPluginName = (name: string): name is AdmissionPluginName => (ADMISSION_PLUGINS as readonly string[]).includes(name);

/** The plugins that run: the defaults plus `enable`, minus `disable` (a name in both is an error the flag layer reports). */
export function enabledPlugins(enable: readonly string[] = [], disable: readonly string[] = []): AdmissionPluginName[] {
  const on = new Set<string>([...DEFAULT_ADMISSION_PLUGINS, ...enable]);
  for (const name of disable) on.delete(name);
  return ADMISSION_PLUGINS.filter((name) => on.has(name));
}

export function createPlugin(name: AdmissionPluginName, env: AdmissionEnv, client: WebhookClient): AdmissionPlugin {
  switch (name) {
    case 'NamespaceLifecycle':
      return namespaceLifecycle(env);
    case 'LimitRanger':
      return limitRanger(env);
    case 'ServiceAccount':
      return serviceAccountPlugin(env);
    case 'DefaultTolerationSeconds':
      return defaultTolerationSeconds();
    case 'DefaultStorageClass':
      return defaultStorageClass(env);
    case 'StorageObjectInUseProtection':
      return storageObjectInUseProtection();
    case 'PersistentVolumeClaimResize':
      return claimResize(env);
    case 'CertificateApproval':
      return certificateApproval(env);
    case 'CertificateSigning':
      return certificateSigning(env);
    case 'MutatingAdmissionWebhook':
      return mutatingWebhooks(env, client);
    case 'ValidatingAdmissionPolicy':
      return validatingAdmissionPolicies(env);
    case 'ValidatingAdmissionWebhook':
      return validatingWebhooks(env, client);
    case 'ResourceQuota':
      return resourceQuota(env);
  }
}
