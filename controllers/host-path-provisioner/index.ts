export { DEFAULT_HOST_PATH_ROOT, HostPathProvisioner, MAX_SIZE_PARAMETER } from './host-path-provisioner.js';
export { hostPathClassKeeper, hostPathStorageClass } from './default-class.js';
