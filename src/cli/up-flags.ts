import { apiServerFlags } from './apiserver-flags.js';
import type { CommandDoc } from './flag-docs.js';
import { withDefaults } from './flags.js';

/**
 * `svc up`'s options: svc-apiserver's table with defaults that suit a laptop (only loopback can
 * connect). When the controller manager and the scheduler join `svc up`, their tables join here.
 */
export const upFlags = withDefaults(apiServerFlags, { 'bind-address': '127.0.0.1' });

export const upDoc: CommandDoc = {
  name: 'svc up',
  usage: 'svc up [flags]',
  summary:
    'Starts a local cluster on the embedded sqlite store in --data-dir (./.svc): the API server and the controller manager (leader election on, its secure port off). Writes <data-dir>/admin.svcconfig for kubectl and svc clients. Listens on 127.0.0.1 unless --bind-address says otherwise. Stop it with Ctrl-C; the next `svc up` on the same data dir resumes the cluster.',
  source: "src/cli/up-flags.ts (svc-apiserver's table with other defaults)",
};
