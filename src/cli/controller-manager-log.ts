import type { ManagerLog } from '../../controllers/index.js';
import type { CommandIO } from './command.js';

/**
 * The `text` logging format (the only one `--logging-format` permits): one line per message,
 * `<level letter><MMDD hh:mm:ss.uuuuuu> <pid> <message>`, as klog writes. `-v` 4 and up adds
 * debug lines. With `--log-text-split-stream`, info and debug go to stdout, warnings and errors
 * to stderr; otherwise everything goes to stderr.
 */
export function textLog(io: CommandIO, options: { readonly verbosity: number; readonly splitStream: boolean }): ManagerLog {
  const line = (letter: string, message: string): string => {
    const now = new Date();
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    const stamp = `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds() * 1000, 6)}`;
    return `${letter}${stamp} ${process.pid} ${message}`;
  };
  const info = (letter: string, message: string) => (options.splitStream ? io.out(line(letter, message)) : io.err(line(letter, message)));
  return {
    info: (message) => info('I', message),
    debug: (message) => (options.verbosity >= 4 ? info('I', message) : undefined),
    warn: (message) => io.err(line('W', message)),
    error: (message) => io.err(line('E', message)),
  };
}
