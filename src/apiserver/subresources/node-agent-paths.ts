import { badRequest, booleanParam } from '../../api/index.js';
import type { HandlerContext } from '../request/index.js';
import type { NodeAgentTarget } from './node-agent-target.js';

/** The query of a request, each name with all its values in order. */
function rawQuery(ctx: HandlerContext): URLSearchParams {
  const url = ctx.request.raw.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

/**
 * The container a pod subresource is about: `container` if given (400 when the pod has none of
 * that name), else the pod's only container (400 naming the choices when it has several).
 */
function containerOf(target: NodeAgentTarget, query: URLSearchParams): string {
  const pod = target.pod!;
  const all = pod.containers ?? [];
  const named = query.get('container');
  if (named) {
    if (!all.includes(named)) throw badRequest(`container ${named} is not valid for pod ${pod.name}`);
    return named;
  }
  const regular = all.slice(0, pod.regular ?? all.length);
  if (regular.length === 1) return regular[0]!;
  throw badRequest(`a container name must be specified for pod ${pod.name}, choose one of: [${regular.join(' ')}]`);
}

/** The PodLogOptions the agent's containerLogs takes, checked as the API server validates them. */
const LOG_PARAMS = ['tailLines', 'limitBytes', 'sinceSeconds', 'sinceTime'] as const;
const LOG_FLAGS = ['follow', 'previous', 'timestamps'] as const;

/** A boolean option of the query, read as strconv.ParseBool does (400 otherwise); empty is false. */
const flagOf = (query: URLSearchParams, name: string): boolean => booleanParam(name, query.get(name) ?? undefined, false) === true;

function logQuery(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  // Passed on in one spelling, so the agent reads what the API server read.
  for (const name of LOG_FLAGS) if (flagOf(query, name)) out.set(name, 'true');
  for (const name of LOG_PARAMS) {
    const value = query.get(name);
    if (value !== null && value !== '') out.set(name, value);
  }
  for (const [name, min] of [['tailLines', 0], ['limitBytes', 1], ['sinceSeconds', 1]] as const) {
    const value = out.get(name);
    if (value !== null && !(/^-?\d+$/.test(value) && Number(value) >= min)) throw badRequest(`${name}: must be an integer of ${min} or more`);
  }
  if (out.has('sinceSeconds') && out.has('sinceTime')) throw badRequest('at most one of sinceTime and sinceSeconds may be given');
  return out;
}

/** kubectl's names of the stream options, and the kubelet's (`input`, `output`, `error`). */
const STREAM_ALIASES: Readonly<Record<string, string>> = { stdin: 'input', stdout: 'output', stderr: 'error', tty: 'tty' };

/**
 * exec/attach keep the client's query (command, container, stdin, stdout, stderr, tty) and add the
 * kubelet's aliases of the stream flags (`input=1`, `output=1`, `error=1`), so an agent may read either.
 */
function streamQuery(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams(query);
  for (const [name, alias] of Object.entries(STREAM_ALIASES)) {
    if (!query.has(name)) continue;
    const on = flagOf(query, name);
    out.set(name, on ? 'true' : 'false');
    if (on) out.set(alias, '1');
  }
  return out;
}

const seg = encodeURIComponent;
const withQuery = (path: string, query: URLSearchParams) => {
  const text = query.toString();
  return text ? `${path}?${text}` : path;
};

/** The path on the agent a subresource request goes to. */
export function agentPath(ctx: HandlerContext, target: NodeAgentTarget): string {
  const query = rawQuery(ctx);
  const pod = target.pod;
  switch (target.subresource) {
    case 'log':
      return withQuery(`/containerLogs/${seg(pod!.namespace)}/${seg(pod!.name)}/${seg(containerOf(target, query))}`, logQuery(query));
    case 'exec':
    case 'attach':
      return withQuery(`/${target.subresource}/${seg(pod!.namespace)}/${seg(pod!.name)}/${seg(containerOf(target, query))}`, streamQuery(query));
    case 'portforward':
      return withQuery(`/portForward/${seg(pod!.namespace)}/${seg(pod!.name)}`, query);
    default: {
      // nodes/<name>/proxy[/<path>]: everything after `proxy` is the agent's path.
      const url = ctx.request.raw.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const match = /\/nodes\/[^/]+\/proxy(\/.*)?$/.exec(path);
      return withQuery(match?.[1] ?? '/', query);
    }
  }
}
