import type { ConfigMap, Container, Pod, Secret, Service } from '../../api/index.js';
import { configError, keyNotFound, sourceNotFound, type SourceKind } from './config-errors.js';
import { expandVariables } from './expand.js';
import { podFieldValue } from './field-ref.js';
import type { PodObjectReader } from './object-reader.js';
import { containerNamed, containerResourceValue } from './resource-field-ref.js';
import { MASTER_SERVICE, serviceEnvVars } from './service-env.js';
import { envFromSourceSchema, envVarSourceSchema, parseSource } from './sources.js';

export interface EnvContext {
  pod: Pod;
  container: Container;
  nodeName: string;
  hostIP: string;
  podIP: string | undefined;
  podIPs: readonly string[];
  /** Node allocatable, for resourceFieldRef defaults when the container sets no limit. */
  nodeAllocatable: Readonly<Record<string, string>>;
  objects: PodObjectReader;
}

// Kubernetes' IsEnvVarName: what envFrom keys must look like once prefixed.
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * The container's environment, as the kubelet builds it: every `envFrom` source in order, then
 * every `env` entry in order, a later name replacing an earlier one's value in place. A `value`
 * has its `$(VAR)` references expanded against the variables defined before it (a `valueFrom`
 * result is taken as it is). envFrom keys that are not valid variable names once prefixed are
 * skipped, as Kubernetes does (it reports them in an event; `skippedKeys` lists them for that).
 * Service links come last, each only when no variable of its name is defined: the variables of
 * the Services of the pod's namespace (unless `enableServiceLinks: false`) and of the API server's
 * `default/kubernetes` Service (also as `SVC_SERVICE_HOST`/`SVC_SERVICE_PORT`, svc's spelling);
 * `$(VAR)` can refer to them.
 *
 * A missing ConfigMap, Secret or key that is not `optional` fails with a StatusError whose reason
 * is `CreateContainerConfigError` (`configmap "x" not found`, `couldn't find key k in Secret ns/x`);
 * an optional one is left out.
 */
export async function resolveEnv(ctx: EnvContext): Promise<{ key: string; value: string }[]> {
  return (await resolveEnvReporting(ctx)).env;
}

/** resolveEnv, also naming the envFrom keys it skipped (for the InvalidEnvironmentVariableNames event). */
export async function resolveEnvReporting(ctx: EnvContext): Promise<{ env: { key: string; value: string }[]; skippedKeys: string[] }> {
  const namespace = ctx.pod.metadata.namespace ?? 'default';
  const sources = sourceCache(ctx.objects, namespace);
  const links = serviceEnvVars(await linkedServices(ctx.objects, namespace, ctx.pod.spec.enableServiceLinks !== false));
  // svc's own spelling of the API server's address (Client.fromEnv reads it first), beside Kubernetes'.
  for (const suffix of ['HOST', 'PORT']) {
    const value = links.get(`KUBERNETES_SERVICE_${suffix}`);
    if (value !== undefined && !links.has(`SVC_SERVICE_${suffix}`)) links.set(`SVC_SERVICE_${suffix}`, value);
  }
  const vars = new Map<string, string>();
  const skippedKeys: string[] = [];

  for (const [index, entry] of (ctx.container.envFrom ?? []).entries()) {
    const parsed = parseSource(envFromSourceSchema, entry);
    if (!parsed.ok) throw configError(`envFrom[${index}] of container ${ctx.container.name}: ${parsed.message}`);
    const { prefix = '', configMapRef, secretRef } = parsed.value;
    const ref = configMapRef ?? secretRef;
    if (!ref) continue;
    const kind: SourceKind = configMapRef ? 'ConfigMap' : 'Secret';
    const data = await sources.data(kind, ref.name);
    if (!data) {
      if (ref.optional) continue;
      throw sourceNotFound(kind, ref.name);
    }
    for (const [key, value] of data) {
      const name = prefix + key;
      if (ENV_VAR_NAME.test(name)) vars.set(name, value);
      else skippedKeys.push(name);
    }
  }

  const lookup = (name: string) => vars.get(name) ?? links.get(name);
  for (const entry of ctx.container.env ?? []) {
    if (entry.value) {
      vars.set(entry.name, expandVariables(entry.value, lookup));
      continue;
    }
    const value = entry.valueFrom === undefined ? '' : await valueFrom(ctx, entry.name, entry.valueFrom, sources, namespace);
    if (value !== undefined) vars.set(entry.name, value);
  }
  for (const [key, value] of links) if (!vars.has(key)) vars.set(key, value);
  return { env: [...vars].map(([key, value]) => ({ key, value })), skippedKeys: skippedKeys.sort() };
}

/** One `valueFrom`; undefined when an optional reference is missing (the variable is left out). */
async function valueFrom(ctx: EnvContext, name: string, raw: unknown, sources: SourceCache, namespace: string): Promise<string | undefined> {
  const parsed = parseSource(envVarSourceSchema, raw);
  if (!parsed.ok) throw configError(`env ${name} of container ${ctx.container.name}: ${parsed.message}`);
  const from = parsed.value;
  try {
    if (from.fieldRef) return podFieldValue(ctx.pod, from.fieldRef.fieldPath, ctx);
    if (from.resourceFieldRef) {
      const target = from.resourceFieldRef.containerName ? containerNamed(ctx.pod, from.resourceFieldRef.containerName) : ctx.container;
      return containerResourceValue(from.resourceFieldRef, target, ctx.nodeAllocatable);
    }
  } catch (error) {
    throw configError(error instanceof Error ? error.message : String(error));
  }
  const ref = from.configMapKeyRef ?? from.secretKeyRef;
  if (!ref) return '';
  const kind: SourceKind = from.configMapKeyRef ? 'ConfigMap' : 'Secret';
  const data = await sources.data(kind, ref.name);
  if (!data) {
    if (ref.optional) return undefined;
    throw sourceNotFound(kind, ref.name);
  }
  const value = data.get(ref.key);
  if (value === undefined && !ref.optional) throw keyNotFound(kind, namespace, ref.name, ref.key);
  return value;
}

// The master Service always; the namespace's own (which win a name clash) when links are enabled.
async function linkedServices(objects: PodObjectReader, namespace: string, enableServiceLinks: boolean): Promise<Service[]> {
  if (!objects.services) return [];
  try {
    const byName = new Map<string, Service>();
    if (namespace !== MASTER_SERVICE.namespace || !enableServiceLinks) {
      const master = (await objects.services(MASTER_SERVICE.namespace)).find((s) => s.metadata.name === MASTER_SERVICE.name);
      if (master) byName.set(MASTER_SERVICE.name, master);
    }
    for (const service of enableServiceLinks ? await objects.services(namespace) : []) byName.set(service.metadata.name ?? '', service);
    return [...byName.values()];
  } catch (error) {
    throw configError(`failed to list services for the service-link environment: ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface SourceCache {
  /** The text entries of a ConfigMap (data) or Secret (decoded data); undefined when it does not exist. */
  data(kind: SourceKind, name: string): Promise<ReadonlyMap<string, string> | undefined>;
}

// One read per object per resolution, as the kubelet's per-call maps do.
function sourceCache(objects: PodObjectReader, namespace: string): SourceCache {
  const read = new Map<string, Promise<ReadonlyMap<string, string> | undefined>>();
  return {
    data(kind, name) {
      const key = `${kind}/${name}`;
      let entry = read.get(key);
      if (!entry) {
        entry = kind === 'ConfigMap' ? objects.configMap(namespace, name).then(configMapText) : objects.secret(namespace, name).then(secretText);
        read.set(key, entry);
      }
      return entry;
    },
  };
}

// Env takes a ConfigMap's `data` only, as Kubernetes does: binaryData never reaches the environment.
function configMapText(configMap: ConfigMap | undefined): ReadonlyMap<string, string> | undefined {
  return configMap && new Map(Object.entries(configMap.data ?? {}));
}

function secretText(secret: Secret | undefined): ReadonlyMap<string, string> | undefined {
  return secret && new Map(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}
