export { Admission, type AdmissionOptions } from './admission.js';
export { abandonAdmission, admitWrite, type OptionsKind, type WriteAdmission } from './request.js';
export type { AdmissionAttributes, AdmissionOperation } from './attributes.js';
export type { AdmissionPlugin, AdmissionEnv, AdmissionRequestScope } from './plugin.js';
export { ADMISSION_PLUGINS, DEFAULT_ADMISSION_PLUGINS, enabledPlugins, isAdmissionPluginName, type AdmissionPluginName } from './plugins.js';
export { IMMORTAL_NAMESPACES } from './namespace-lifecycle.js';
export { DEFAULT_SERVICE_ACCOUNT, API_ACCESS_VOLUME_PREFIX } from './service-account.js';
export { CachedObjects } from './cached-objects.js';
