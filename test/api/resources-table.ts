import type { ResourceRegistry, ResourceType } from '../../src/api/index.js';

/**
 * Renders docs/resources.md from a registry. The page is generated so it cannot drift from the
 * code: resources-doc.test.ts compares it, and rewrites it when run with SVC_UPDATE_DOCS=1.
 */

const gv = (type: ResourceType) => (type.group ? `${type.group}/${type.version}` : type.version);
const codes = (items: readonly string[]) => (items.length ? items.map((i) => `\`${i}\``).join(', ') : '—');

export function renderResourcesPage(registry: ResourceRegistry): string {
  const rows = registry.all().map((type) => {
    const extraFields = Object.keys(type.fieldSelectors).filter((f) => !f.startsWith('metadata.'));
    return `| \`${gv(type)}\` | ${type.kind} | \`${type.resource}\` | ${codes(type.shortNames)} | ${type.namespaced ? 'Namespaced' : 'Cluster'} | ${codes(type.subresources)} | ${codes(extraFields)} |`;
  });
  return [
    '# Built-in resource types',
    '',
    '<!-- Generated from builtinRegistry() by test/api/resources-table.ts. Do not edit by hand:',
    '     SVC_UPDATE_DOCS=1 npx vitest run test/api/resources-doc.test.ts rewrites it. -->',
    '',
    'Every type svc serves. Groups Kubernetes names `*.k8s.io` are `*.svc.io` here; requests using',
    'the upstream names are accepted too. Every type supports the verbs `create`, `delete`,',
    '`deletecollection`, `get`, `list`, `patch`, `update` and `watch`, except that `namespaces` has no',
    '`deletecollection`. Every type accepts the field selector `metadata.name`, and namespaced types',
    '`metadata.namespace`; the last column lists the others. The kinds in the `all` category are:',
    `${[
      ...new Set(
        registry
          .all()
          .filter((t) => t.categories?.includes('all'))
          .map((t) => `\`${t.resource}\``),
      ),
    ].join(', ')}.`,
    '',
    '| Group/Version | Kind | Resource | Short names | Scope | Subresources | Field selectors |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Object names follow Kubernetes: namespaces are DNS labels, services DNS-1035 labels, the RBAC',
    "kinds any path segment (not `.` or `..`, no `/` or `%`), everything else DNS subdomains.",
    'Fields the schemas do not model are stored and returned as sent.',
    '',
  ].join('\n');
}
