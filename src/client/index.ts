export { SvcconfigError, loadSvcconfig, writeSvcconfig } from './svcconfig.js';
export type { SvcconfigEntry, SvcconfigTarget } from './svcconfig.js';
