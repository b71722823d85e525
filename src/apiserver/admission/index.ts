export { Admission, type AdmissionOptions } from './admission.js';
export type { Admitted } from './chain.js';
export type { AdmissionAttributes, AdmissionOperation } from './attributes.js';
export type { AdmissionPlugin, AdmissionEnv, AdmissionRequestScope } from './plugin.js';
export { ADMISSION_PLUGINS, DEFAULT_ADMISSION_PLUGINS, enabledPlugins, isAdmissionPluginName, type AdmissionPluginName } from './plugins.js';
export { IMMORTAL_NAMESPACES } from './namespace-lifecycle.js';
export { DEFAULT_SERVICE_ACCOUNT, API_ACCESS_VOLUME_PREFIX } from './service-account.js';
export { CachedObjects } from './cached-objects.js';
export { reviewOptions } from './review-options.js';
