/** The agent's log: klog's -v and --vmodule rules, per source file. */
export { agentLog, vmoduleLevel, type AgentLog, type AgentLogOptions, type FileLog } from './agent-log.js';
