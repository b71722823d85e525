import { Environment } from '@marcbachmann/cel-js';
import { re2Matches } from './regex.js';
import { AuthorizerValue, DecisionValue, GroupCheckValue, PathCheckValue, ResourceCheckValue, type CelResourceCheck } from './authorizer-values.js';

/** The name `matches` is evaluated under (RE2; see compile.ts). */
export const RE2_MATCHES = 'svcRe2Matches';

/** The variables every admission expression may read (Kubernetes' names). */
export const ADMISSION_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'authorizer', 'variables'] as const;

const AUTHORIZER = 'kubernetes.authorization.Authorizer';
const GROUP_CHECK = 'kubernetes.authorization.GroupCheck';
const RESOURCE_CHECK = 'kubernetes.authorization.ResourceCheck';
const PATH_CHECK = 'kubernetes.authorization.PathCheck';
const DECISION = 'kubernetes.authorization.Decision';

type Fn = (...args: never[]) => unknown;
interface Method {
  readonly name: string;
  readonly receiverType: string;
  readonly returnType: string;
  readonly params: readonly { name: string; type: string }[];
  readonly handler: Fn;
}

const param = (name: string, type: string) => ({ name, type });
const resourceWith = (field: keyof Omit<CelResourceCheck, 'kind'>) => (check: ResourceCheckValue, value: string) =>
  new ResourceCheckValue(check.authorizer, { ...check.target, [field]: value });

/** The authorizer library's types and methods. */
const authorizerMethods: readonly Method[] = [
  { name: 'group', receiverType: AUTHORIZER, returnType: GROUP_CHECK, params: [param('group', 'string')], handler: ((a: AuthorizerValue, g: string) => new GroupCheckValue(a, g)) as Fn },
  { name: 'path', receiverType: AUTHORIZER, returnType: PATH_CHECK, params: [param('path', 'string')], handler: ((a: AuthorizerValue, p: string) => new PathCheckValue(a, p)) as Fn },
  {
    name: 'serviceAccount',
    receiverType: AUTHORIZER,
    returnType: AUTHORIZER,
    params: [param('namespace', 'string'), param('name', 'string')],
    handler: ((a: AuthorizerValue, namespace: string, name: string) => new AuthorizerValue(a.authorize, { kind: 'serviceAccount', namespace, name }, a.request)) as Fn,
  },
  {
    name: 'resource',
    receiverType: GROUP_CHECK,
    returnType: RESOURCE_CHECK,
    params: [param('resource', 'string')],
    handler: ((g: GroupCheckValue, resource: string) =>
      new ResourceCheckValue(g.authorizer, { kind: 'resource', group: g.group, resource, subresource: '', namespace: '', name: '' })) as Fn,
  },
  { name: 'subresource', receiverType: RESOURCE_CHECK, returnType: RESOURCE_CHECK, params: [param('subresource', 'string')], handler: resourceWith('subresource') as Fn },
  { name: 'namespace', receiverType: RESOURCE_CHECK, returnType: RESOURCE_CHECK, params: [param('namespace', 'string')], handler: resourceWith('namespace') as Fn },
  { name: 'name', receiverType: RESOURCE_CHECK, returnType: RESOURCE_CHECK, params: [param('name', 'string')], handler: resourceWith('name') as Fn },
  {
    name: 'check',
    receiverType: RESOURCE_CHECK,
    returnType: DECISION,
    params: [param('verb', 'string')],
    handler: ((r: ResourceCheckValue, verb: string) => new DecisionValue(r.authorizer.authorize(r.authorizer.subject, r.target, verb))) as Fn,
  },
  {
    name: 'check',
    receiverType: PATH_CHECK,
    returnType: DECISION,
    params: [param('verb', 'string')],
    handler: ((p: PathCheckValue, verb: string) => new DecisionValue(p.authorizer.authorize(p.authorizer.subject, { kind: 'path', path: p.path }, verb))) as Fn,
  },
  { name: 'allowed', receiverType: DECISION, returnType: 'bool', params: [], handler: ((d: DecisionValue) => d.decision.decision === 'allow') as Fn },
  { name: 'denied', receiverType: DECISION, returnType: 'bool', params: [], handler: ((d: DecisionValue) => d.decision.decision === 'deny') as Fn },
  { name: 'reason', receiverType: DECISION, returnType: 'string', params: [], handler: ((d: DecisionValue) => d.decision.reason) as Fn },
  { name: 'errored', receiverType: DECISION, returnType: 'bool', params: [], handler: ((d: DecisionValue) => d.decision.error !== undefined) as Fn },
  { name: 'error', receiverType: DECISION, returnType: 'string', params: [], handler: ((d: DecisionValue) => d.decision.error ?? '') as Fn },
];

const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = typeof a === 'bigint' || typeof a === 'number' ? a : Number(a);
  const y = typeof b === 'bigint' || typeof b === 'number' ? b : Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

const nonEmpty = (list: readonly unknown[], what: string) => {
  if (list.length === 0) throw new Error(`${what} called on an empty list`);
  return list;
};

/** Kubernetes' list and string libraries, where the evaluator lacks them. */
const libraryMethods: readonly Method[] = [
  { name: 'isSorted', receiverType: 'list', returnType: 'bool', params: [], handler: ((l: unknown[]) => l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0)) as Fn },
  {
    name: 'sum',
    receiverType: 'list',
    returnType: 'dyn',
    params: [],
    handler: ((l: unknown[]) => (l.length === 0 ? 0n : (l as (number | bigint)[]).reduce((a, b) => ((a as bigint) + (b as bigint)) as never))) as Fn,
  },
  { name: 'min', receiverType: 'list', returnType: 'dyn', params: [], handler: ((l: unknown[]) => nonEmpty(l, 'min').reduce((a, b) => (compare(a, b) <= 0 ? a : b))) as Fn },
  { name: 'max', receiverType: 'list', returnType: 'dyn', params: [], handler: ((l: unknown[]) => nonEmpty(l, 'max').reduce((a, b) => (compare(a, b) >= 0 ? a : b))) as Fn },
  { name: 'indexOf', receiverType: 'list', returnType: 'int', params: [param('value', 'dyn')], handler: ((l: unknown[], v: unknown) => BigInt(l.findIndex((x) => compare(x, v) === 0))) as Fn },
  { name: 'lastIndexOf', receiverType: 'list', returnType: 'int', params: [param('value', 'dyn')], handler: ((l: unknown[], v: unknown) => BigInt(l.findLastIndex((x) => compare(x, v) === 0))) as Fn },
  { name: 'replace', receiverType: 'string', returnType: 'string', params: [param('old', 'string'), param('new', 'string')], handler: ((s: string, a: string, b: string) => s.split(a).join(b)) as Fn },
  { name: 'charAt', receiverType: 'string', returnType: 'string', params: [param('index', 'int')], handler: ((s: string, i: bigint) => s.charAt(Number(i))) as Fn },
  { name: 'reverse', receiverType: 'string', returnType: 'string', params: [], handler: ((s: string) => [...s].reverse().join('')) as Fn },
  // `matches`, through RE2: compile.ts renames every call of the evaluator's own (a backtracking engine) to this.
  { name: RE2_MATCHES, receiverType: 'string', returnType: 'bool', params: [param('regex', 'string')], handler: ((s: string, r: string) => re2Matches(s, r)) as Fn },
];

/**
 * An environment with Kubernetes' libraries and types, and without variables: the admission one
 * declares them all `dyn`, the type checker declares `object` and `params` with their kinds'
 * schemas.
 */
export function baseEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  env.registerType(AUTHORIZER, AuthorizerValue as never);
  env.registerType(GROUP_CHECK, GroupCheckValue as never);
  env.registerType(RESOURCE_CHECK, ResourceCheckValue as never);
  env.registerType(PATH_CHECK, PathCheckValue as never);
  env.registerType(DECISION, DecisionValue as never);
  for (const method of [...authorizerMethods, ...libraryMethods]) env.registerFunction(method as never);
  return env;
}

/** Declares the admission variables; `typed` gives some of them a type of their own. */
export function declareAdmissionVariables(env: Environment, typed: Readonly<Partial<Record<(typeof ADMISSION_VARIABLES)[number], string>>> = {}): Environment {
  for (const name of ADMISSION_VARIABLES) {
    const fallback = name === 'authorizer' ? AUTHORIZER : name === 'variables' ? 'map<string, dyn>' : 'dyn';
    env.registerVariable(name, typed[name] ?? fallback);
  }
  return env;
}

let shared: Environment | undefined;

/** The environment admission compiles and evaluates in: every variable `dyn` but `authorizer`. Built once. */
export function admissionEnvironment(): Environment {
  shared ??= declareAdmissionVariables(baseEnvironment());
  return shared;
}
