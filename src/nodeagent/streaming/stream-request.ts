/**
 * What an exec, attach or port-forward request asks for, read from its path and query the way
 * the kubelet reads them. Paths: `/exec/{namespace}/{pod}[/{uid}]/{container}`,
 * `/attach/...` alike, `/portForward/{namespace}/{pod}[/{uid}]`. Query names: the API server's
 * (`stdin`, `stdout`, `stderr`, `tty`, `command`, `ports`) and the kubelet's own (`input`,
 * `output`, `error`, `port`), values `1` or `true`. Bad input is a BadRequest StatusError.
 */
import { booleanParam, StatusError } from '../../api/index.js';

export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  /** When the path names it: only the pod with this UID matches. */
  readonly uid: string | undefined;
}

export type StreamRequest =
  | { readonly kind: 'exec'; readonly pod: PodRef; readonly container: string; readonly command: readonly string[]; readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean; readonly tty: boolean }
  | { readonly kind: 'attach'; readonly pod: PodRef; readonly container: string; readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean; readonly tty: boolean }
  | { readonly kind: 'portForward'; readonly pod: PodRef; readonly ports: readonly number[] };

const PREFIXES = ['/exec/', '/attach/', '/portForward/'] as const;

/** Whether a request path is one of the streaming endpoints (the server routes these here). */
export function isStreamingPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return PREFIXES.some((p) => path.startsWith(p));
}

function badRequest(message: string): StatusError {
  return new StatusError({ reason: 'BadRequest', message });
}

/** A stream option under any of its names, read as strconv.ParseBool does; another spelling is a 400. */
function flag(query: URLSearchParams, ...names: string[]): boolean {
  return names.some((name) => booleanParam(name, query.get(name) ?? undefined, false) === true);
}

/** Parses `port`/`ports` values: repeated, comma separated, each in 1..65535. */
export function parsePorts(values: readonly string[]): number[] {
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') throw badRequest('query parameter "port" cannot be empty');
    for (const part of value.split(',')) {
      const port = /^\d{1,5}$/.test(part) ? Number(part) : NaN;
      if (!(port >= 1 && port <= 65535)) throw badRequest(`unable to parse "${part}" as a port: must be an integer in 1..65535`);
      ports.push(port);
    }
  }
  return ports;
}

export function parseStreamRequest(method: string, url: string): StreamRequest {
  if (method !== 'GET' && method !== 'POST') throw new StatusError({ reason: 'MethodNotAllowed', message: `${method} is not allowed on streaming endpoints; use GET or POST` });
  const parsed = new URL(url, 'http://agent');
  const segments = parsed.pathname.split('/').slice(1).map((s) => decodeURIComponent(s));
  const [kind, namespace, name, ...rest] = segments;
  if (!namespace || !name) throw badRequest(`${parsed.pathname}: expected /${kind ?? 'exec'}/{namespace}/{pod}/...`);
  const query = parsed.searchParams;
  if (kind === 'portForward') {
    if (rest.length > 1 || rest[0] === '') throw badRequest(`${parsed.pathname}: expected /portForward/{namespace}/{pod}[/{uid}]`);
    return { kind, pod: { namespace, name, uid: rest[0] }, ports: parsePorts([...query.getAll('port'), ...query.getAll('ports')]) };
  }
  if (kind !== 'exec' && kind !== 'attach') throw new StatusError({ reason: 'NotFound', message: `${parsed.pathname} is not a streaming endpoint` });
  if (rest.length < 1 || rest.length > 2 || rest.some((s) => s === '')) throw badRequest(`${parsed.pathname}: expected /${kind}/{namespace}/{pod}[/{uid}]/{container}`);
  const uid = rest.length === 2 ? rest[0] : undefined;
  const container = rest[rest.length - 1] as string;
  const stdin = flag(query, 'stdin', 'input');
  const stdout = flag(query, 'stdout', 'output');
  const tty = flag(query, 'tty');
  // A terminal merges stderr into stdout; the CRI refuses tty together with stderr.
  const stderr = !tty && flag(query, 'stderr', 'error');
  if (!stdin && !stdout && !flag(query, 'stderr', 'error')) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
  const pod = { namespace, name, uid };
  if (kind === 'attach') return { kind, pod, container, stdin, stdout, stderr, tty };
  const command = query.getAll('command');
  if (command.length === 0 || command[0] === '') throw badRequest('you must specify a command (query parameter "command")');
  return { kind, pod, container, command, stdin, stdout, stderr, tty };
}
