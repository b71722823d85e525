/** Where the manager writes what it does; a pino logger fits as it is. */
export interface ManagerLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export const silentLog: ManagerLog = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
