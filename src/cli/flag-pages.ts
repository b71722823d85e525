import { apiServerDoc, apiServerFlags } from './apiserver-flags.js';
import { controllerManagerDoc, controllerManagerFlags } from './controller-manager-flags.js';
import type { CommandDoc } from './flag-docs.js';
import type { FlagTable } from './flag-spec.js';
import { nodeAgentDoc, nodeAgentFlags } from './nodeagent-flags.js';
import { proxyDoc, proxyFlags } from './proxy-command.js';
import { hollowNodesDoc, hollowNodesFlags } from './hollow-nodes-command.js';
import { schedulerDoc, schedulerFlags } from './scheduler-flags.js';
import { upDoc, upFlags } from './up-flags.js';

/** The generated flags pages: one per command with a table. The docs test keeps them current. */
export interface FlagPage {
  /** Relative to the repository root. */
  readonly file: string;
  readonly doc: CommandDoc;
  readonly table: FlagTable;
}

/** The command that regenerates every page (named in each page's header). */
export const FLAG_PAGES_GENERATOR = 'node --import tsx scripts/gen-flags-docs.ts';

export const flagPages: readonly FlagPage[] = [
  { file: 'docs/flags/svc-apiserver.md', doc: apiServerDoc, table: apiServerFlags },
  { file: 'docs/flags/svc-up.md', doc: upDoc, table: upFlags },
  { file: 'docs/flags/svc-controller-manager.md', doc: controllerManagerDoc, table: controllerManagerFlags },
  { file: 'docs/flags/nodeagent.md', doc: nodeAgentDoc, table: nodeAgentFlags },
  { file: 'docs/flags/svc-scheduler.md', doc: schedulerDoc, table: schedulerFlags },
  { file: 'docs/flags/svc-proxy.md', doc: proxyDoc, table: proxyFlags },
  { file: 'docs/flags/svc-hollow-nodes.md', doc: hollowNodesDoc, table: hollowNodesFlags },
];
