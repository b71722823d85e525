import { createHash } from 'node:crypto';
import { upstreamGroupAlias, upstreamGroupName, type ResourceRegistry, type ResourceType } from '../api/index.js';

/**
 * A minimal OpenAPI v3 description: the root index and, per group version, the paths with their
 * operations. kubectl reads it to learn that PATCH of a kind takes `fieldValidation`, and then
 * leaves validation to the server instead of demanding a client-side schema.
 * (Object schemas are not published yet: `kubectl explain` has nothing to show.)
 */

const gvPath = (group: string, version: string) => (group === '' ? `api/${version}` : `apis/${group}/${version}`);

const queryParameter = (name: string) => ({ name, in: 'query', schema: { type: 'string' }, uniqueItems: true });

function operations(type: ResourceType, group: string, collection: boolean) {
  const gvk = { group, version: type.version, kind: type.kind };
  const op = (action: string, extra: object = {}) => ({
    operationId: `${action}${type.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    responses: { '200': { description: 'OK' } },
    ...extra,
  });
  const writeParams = { parameters: ['dryRun', 'fieldManager', 'fieldValidation'].map(queryParameter) };
  const has = (verb: string) => type.verbs.includes(verb);
  if (collection) {
    return {
      ...(has('list') ? { get: op('list') } : {}),
      ...(has('create') ? { post: op('post', writeParams) } : {}),
      ...(has('deletecollection') ? { delete: op('deletecollection') } : {}),
    };
  }
  return {
    ...(has('get') ? { get: op('get') } : {}),
    ...(has('update') ? { put: op('put', writeParams) } : {}),
    ...(has('patch') ? { patch: op('patch', { parameters: [...writeParams.parameters, queryParameter('force')] }) } : {}),
    ...(has('delete') ? { delete: op('delete') } : {}),
  };
}

/** The paths of one group version, under the group name asked for (svc's or the upstream one). */
export function openApiDocument(registry: ResourceRegistry, group: string, version: string) {
  const types = registry.resourcesOf(upstreamGroupAlias(group), version);
  if (types.length === 0) return undefined;
  const paths: Record<string, object> = {};
  const base = `/${gvPath(group, version)}`;
  for (const type of types) {
    const scope = type.namespaced ? `${base}/namespaces/{namespace}/${type.resource}` : `${base}/${type.resource}`;
    paths[scope] = operations(type, group, true);
    paths[`${scope}/{name}`] = operations(type, group, false);
  }
  return { openapi: '3.0.0', info: { title: 'svc', version: `${group || 'core'}/${version}` }, paths };
}

export function openApiRoot(registry: ResourceRegistry) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const group of registry.groups()) {
    // Each *.svc.io group is described under its upstream name too, as discovery lists it.
    const names = upstreamGroupName(group.name) === group.name ? [group.name] : [group.name, upstreamGroupName(group.name)];
    for (const name of names) {
      for (const version of group.versions) {
        const doc = JSON.stringify(openApiDocument(registry, name, version));
        const hash = createHash('sha256').update(doc).digest('hex').slice(0, 32).toUpperCase();
        paths[gvPath(name, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(name, version)}?hash=${hash}` };
      }
    }
  }
  return { paths };
}
