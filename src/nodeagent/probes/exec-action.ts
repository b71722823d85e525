import { StatusError } from '../../api/index.js';
import { GrpcStatus, isCriError, type CriClient } from '../cri/index.js';
import type { ExecAction } from './actions.js';
import type { ActionOutcome } from './target.js';

/** Output kept for a message; the rest of a chatty command's output is not worth an event. */
export const MAX_OUTPUT_BYTES = 10 * 1024;

export interface ExecOptions {
  readonly cri: CriClient;
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs the command in the container through CRI ExecSync: exit code 0 is success, any other is
 * failure with the command's output (stdout then stderr) as the message. The runtime enforces the
 * timeout; a command it cut off is a failure ("timed out"), as the kubelet counts it.
 */
export async function runExecAction(action: ExecAction, containerId: string, options: ExecOptions): Promise<ActionOutcome> {
  const command = action.command ?? [];
  if (command.length === 0) throw new StatusError({ reason: 'Invalid', message: 'exec action has no command' });
  try {
    const response = await options.cri.execSync(
      { containerId, cmd: command, timeout: BigInt(Math.max(1, options.timeoutSeconds)) },
      options.signal ? { signal: options.signal } : undefined,
    );
    const output = outputOf(response.stdout, response.stderr);
    if (response.exitCode === 0) return { result: 'success', message: output };
    return { result: 'failure', message: output || `command ${JSON.stringify(command)} exited with ${response.exitCode}` };
  } catch (error) {
    if (isCriError(error, GrpcStatus.DEADLINE_EXCEEDED)) {
      return { result: 'failure', message: `command ${JSON.stringify(command)} timed out after ${options.timeoutSeconds}s` };
    }
    throw error;
  }
}

function outputOf(stdout: Uint8Array, stderr: Uint8Array): string {
  const both = Buffer.concat([stdout, stderr]);
  return both.subarray(0, MAX_OUTPUT_BYTES).toString('utf8').trimEnd();
}
