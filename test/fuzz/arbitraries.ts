/**
 * fast-check generators of hostile input: JSON-like trees whose keys include the ones parsers and
 * patchers treat specially, text of every body format, names, selectors, query parameters and
 * tokens. Trees are kept as entry lists (not objects) so `__proto__` stays an ordinary key and
 * duplicate keys survive into the JSON text.
 */
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import { encodeCbor } from '../../src/encoding/index.js';

/** The namespace the fuzz suite's objects live in. */
const NS_NAME = 'fuzz';

export type Tree = null | boolean | number | string | Tree[] | { readonly entries: readonly (readonly [string, Tree])[] };

/** Keys decoders and the patch algorithms give a meaning to, or that name JavaScript's own properties. */
export const TRICKY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$patch',
  '$retainKeys',
  '$setElementOrder/containers',
  '$setElementOrder/finalizers',
  '$deleteFromPrimitiveList/finalizers',
  'apiVersion',
  'kind',
  'metadata',
  'name',
  'namespace',
  'resourceVersion',
  'uid',
  'generateName',
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
  'managedFields',
  'deletionTimestamp',
  'data',
  'binaryData',
  'spec',
  'status',
  'containers',
  'image',
  'replicas',
  'selector',
  'template',
  '',
];

const SCALAR_STRINGS = ['', 'v1', 'ConfigMap', 'Deployment', 'delete', 'replace', 'merge', 'retainKeys', 'a'.repeat(300), '-', '.', '..', 'A', '0', 'true', 'null', '\u0000', '💥'];

export const scalar: fc.Arbitrary<Tree> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.5, Number.MAX_SAFE_INTEGER, -1),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...SCALAR_STRINGS),
  fc.string({ maxLength: 20 }),
);

export const key: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ maxLength: 12 }));

export const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('tree')), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
})).tree;

const isEntries = (t: Tree): t is { readonly entries: readonly (readonly [string, Tree])[] } => typeof t === 'object' && t !== null && !Array.isArray(t);

/** JSON text of a tree (duplicate keys kept). */
export function toJson(t: Tree): string {
  if (Array.isArray(t)) return `[${t.map(toJson).join(',')}]`;
  if (isEntries(t)) return `{${t.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  return JSON.stringify(t);
}

/** A plain value of a tree, every key an own property (`__proto__` too); the last duplicate wins. */
export function toValue(t: Tree): unknown {
  if (Array.isArray(t)) return t.map(toValue);
  if (isEntries(t)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of t.entries) Object.defineProperty(out, k, { value: toValue(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return t;
}

export const entriesOf = (fields: Record<string, Tree | undefined>): Tree => ({
  entries: Object.entries(fields).filter((e): e is [string, Tree] => e[1] !== undefined),
});

/** Kubernetes names: valid ones, near misses and garbage. */
export const name: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/),
  fc.constantFrom('', '.', '..', '-a', 'a-', 'A', 'a.b', 'a/b', 'a%2Fb', 'a b', 'a'.repeat(254), 'a'.repeat(64), '__proto__', 'constructor', 'kube-root-ca.crt', 'target', '%00', '\u00e9'),
  fc.string({ maxLength: 30 }),
);

const stringMap: fc.Arbitrary<Tree> = fc.oneof(
  fc.array(fc.tuple(fc.oneof(key, fc.stringMatching(/^[a-z0-9./-]{1,20}$/)), fc.oneof(fc.string({ maxLength: 10 }), scalar)), { maxLength: 4 }).map((entries) => ({ entries })),
  tree,
);

/** A ConfigMap, each part possibly replaced by something else. */
export const configMapTree: fc.Arbitrary<Tree> = fc
  .record({
    apiVersion: fc.option(fc.oneof(fc.constant<Tree>('v1'), scalar), { nil: undefined }),
    kind: fc.option(fc.oneof(fc.constant<Tree>('ConfigMap'), scalar), { nil: undefined }),
    metadata: fc.option(
      fc.oneof(
        fc
          .record({
            name: fc.option(fc.oneof(name, scalar), { nil: undefined }),
            generateName: fc.option(fc.oneof(name, scalar), { nil: undefined }),
            namespace: fc.option(fc.oneof(fc.constant(NS_NAME), name), { nil: undefined }),
            labels: fc.option(stringMap, { nil: undefined }),
            annotations: fc.option(stringMap, { nil: undefined }),
            resourceVersion: fc.option(fc.oneof(fc.constantFrom('0', '1', '-1', '99999999999999999999', 'x'), scalar), { nil: undefined }),
            finalizers: fc.option(tree, { nil: undefined }),
            ownerReferences: fc.option(tree, { nil: undefined }),
            managedFields: fc.option(tree, { nil: undefined }),
            extra: fc.option(fc.tuple(key, tree), { nil: undefined }),
          })
          .map(({ extra, ...fields }) => entriesOf({ ...fields, ...(extra ? { [extra[0]]: extra[1] } : {}) })),
        tree,
      ),
      { nil: undefined },
    ),
    data: fc.option(stringMap, { nil: undefined }),
    binaryData: fc.option(fc.oneof(fc.constant<Tree>({ entries: [['b', 'aGVsbG8=']] }), stringMap), { nil: undefined }),
    extra: fc.option(fc.tuple(key, tree), { nil: undefined }),
  })
  .map(({ extra, ...fields }) => entriesOf({ ...fields, ...(extra ? { [extra[0]]: extra[1] } : {}) }));


/** YAML texts aimed at the YAML parser itself: anchors, aliases, merge keys, tags, documents. */
const yamlSpecial = fc.constantFrom(
  '',
  '---\n---\n',
  'a: &a [*a]\n',
  'a: &a {b: *a}\n',
  'x: &x [1]\ny: [*x, *x, *x, *x]\n',
  '<<: {apiVersion: v1}\nkind: ConfigMap\nmetadata: {name: merged}\n',
  'apiVersion: !!binary aGVsbG8=\nkind: ConfigMap\n',
  'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata: {a: !!int 1}\n',
  '!!set {a, b}',
  '? [a, b]\n: c\n',
  'apiVersion: v1\napiVersion: v1\n',
  '%YAML 1.1\n---\na: b\n',
  '"\\u0000": 1\n',
  '{'.repeat(200),
  '- '.repeat(200) + 'a',
  'a: 0x1F\nb: 1e400\nc: .nan\n',
);

/** A body and the Content-Type it is sent with: any format a decoder may be handed. */
export interface Body {
  readonly contentType: string;
  readonly body: string | Uint8Array;
}

const bodyBytes = fc.uint8Array({ maxLength: 200 });

export const jsonBody: fc.Arbitrary<string> = fc.oneof(
  configMapTree.map(toJson),
  tree.map(toJson),
  fc.string({ maxLength: 100 }),
  configMapTree.chain((t) => fc.nat({ max: 200 }).map((cut) => toJson(t).slice(0, cut))),
);

export const yamlBody: fc.Arbitrary<string> = fc.oneof(
  configMapTree.map((t) => yamlStringify(toValue(t))),
  configMapTree.map(toJson),
  yamlSpecial,
  fc.string({ maxLength: 100 }),
);

export const cborBody: fc.Arbitrary<Uint8Array> = fc.oneof(
  configMapTree.map((t) => encodeCbor(toValue(t))),
  tree.map((t) => encodeCbor(toValue(t))),
  bodyBytes.map((b) => new Uint8Array([0xd9, 0xd9, 0xf7, ...b])),
  bodyBytes,
);

/** Protobuf envelopes: the magic, then an Unknown with random or flipped bytes; or nothing like it. */
export const protobufBody = (valid: Uint8Array): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    bodyBytes.map((b) => new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...b])),
    bodyBytes,
    fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }).map((flips) => {
      const out = new Uint8Array(valid);
      for (const [at, byte] of flips) out[at] = byte;
      return out;
    }),
    fc.nat({ max: valid.length }).map((cut) => valid.slice(0, cut)),
  );

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export const body = (validProtobuf: Uint8Array): fc.Arbitrary<Body> =>
  fc.oneof(
    jsonBody.map((b) => ({ contentType: 'application/json', body: b })),
    yamlBody.map((b) => ({ contentType: 'application/yaml', body: b })),
    cborBody.map((b) => ({ contentType: 'application/cbor', body: b })),
    protobufBody(validProtobuf).map((b) => ({ contentType: PROTOBUF, body: b })),
    fc
      .tuple(fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1', 'application/json;;', '*/*', '', 'application/vnd.svc.protobuf'), jsonBody)
      .map(([contentType, b]) => ({ contentType, body: b })),
  );

/** JSON patch documents: operations with real and broken paths, values and froms. */
const pointer = fc.oneof(
  fc.constantFrom('', '/', '/metadata', '/metadata/labels', '/metadata/labels/a', '/data', '/data/a', '/data/-', '/spec/template/spec/containers/0', '/spec/template/spec/containers/-', '/metadata/name', '/metadata/resourceVersion', '/kind', '/__proto__/x', '/constructor/prototype', '/data/~1', '/data/~2', '/spec/replicas', '/metadata/finalizers/0'),
  fc.array(fc.oneof(key, fc.nat({ max: 3 }).map(String), fc.constant('-')), { maxLength: 4 }).map((segs) => segs.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('')),
);

const jsonPatchOp: fc.Arbitrary<Tree> = fc
  .record({
    op: fc.option(fc.oneof(fc.constantFrom<Tree>('add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', '_get'), scalar), { nil: undefined }),
    path: fc.option(fc.oneof(pointer, scalar), { nil: undefined }),
    from: fc.option(fc.oneof(pointer, scalar), { nil: undefined }),
    value: fc.option(tree, { nil: undefined }),
  })
  .map((fields) => entriesOf(fields));

const KNOWN_POINTERS = ['', '/metadata', '/metadata/labels', '/metadata/labels/a', '/metadata/annotations', '/data', '/data/a', '/data/b', '/spec', '/spec/template', '/spec/template/spec/containers', '/spec/template/spec/containers/0', '/spec/template/spec/containers/1/name', '/metadata/finalizers', '/metadata/finalizers/0'];

/** Operations that are well formed but for their paths: a move or copy may go into its own child. */
const wellFormedOp: fc.Arbitrary<Tree> = fc
  .record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
    path: fc.oneof(fc.constantFrom(...KNOWN_POINTERS), pointer),
    fromPrefix: fc.nat({ max: 3 }),
    value: tree,
  })
  .map(({ op, path, fromPrefix, value }) => {
    // `from` is the path or one of its ancestors: the cases a move into itself is made of.
    const from = path.split('/').slice(0, Math.max(1, path.split('/').length - fromPrefix)).join('/');
    return entriesOf({ op, path, ...(op === 'move' || op === 'copy' ? { from } : {}), ...(op === 'remove' || op === 'move' || op === 'copy' ? {} : { value }) });
  });

export const jsonPatch: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.oneof(wellFormedOp, jsonPatchOp), { maxLength: 5 }).map(toJson),
  tree.map(toJson),
  fc.string({ maxLength: 40 }),
);

/** Merge and strategic-merge patches: object trees with the directive keys, over a Deployment or ConfigMap shape. */
const container: fc.Arbitrary<Tree> = fc
  .record({
    name: fc.option(fc.oneof(fc.constantFrom<Tree>('app', 'side'), scalar), { nil: undefined }),
    image: fc.option(fc.oneof(fc.constant<Tree>('busybox'), scalar), { nil: undefined }),
    $patch: fc.option(fc.constantFrom<Tree>('delete', 'replace', 'merge', 'bogus', 1), { nil: undefined }),
    env: fc.option(tree, { nil: undefined }),
  })
  .map((fields) => entriesOf(fields));

export const strategicPatch: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      $patch: fc.option(fc.constantFrom<Tree>('delete', 'replace', 'merge', 'x', null, 3), { nil: undefined }),
      $retainKeys: fc.option(fc.oneof(fc.array(fc.oneof(key, scalar), { maxLength: 3 }), scalar), { nil: undefined }),
      metadata: fc.option(
        fc
          .record({
            labels: fc.option(stringMap, { nil: undefined }),
            finalizers: fc.option(tree, { nil: undefined }),
            '$setElementOrder/finalizers': fc.option(fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar), { nil: undefined }),
            '$deleteFromPrimitiveList/finalizers': fc.option(fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar), { nil: undefined }),
          })
          .map((fields) => entriesOf(fields)),
        { nil: undefined },
      ),
      spec: fc.option(
        fc
          .record({
            replicas: fc.option(scalar, { nil: undefined }),
            template: fc.option(
              fc
                .record({
                  spec: fc.option(
                    fc
                      .record({
                        containers: fc.option(fc.oneof(fc.array(container, { maxLength: 3 }), tree), { nil: undefined }),
                        '$setElementOrder/containers': fc.option(fc.oneof(fc.array(fc.oneof(container, scalar), { maxLength: 3 }), scalar), { nil: undefined }),
                        $retainKeys: fc.option(fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar), { nil: undefined }),
                      })
                      .map((fields) => entriesOf(fields)),
                    { nil: undefined },
                  ),
                })
                .map((fields) => entriesOf(fields)),
              { nil: undefined },
            ),
          })
          .map((fields) => entriesOf(fields)),
        { nil: undefined },
      ),
      data: fc.option(stringMap, { nil: undefined }),
    })
    .map((fields) => toJson(entriesOf(fields))),
  tree.map(toJson),
  configMapTree.map(toJson),
);

/** Label selectors: the grammar's pieces put together right and wrong. */
const labelKey = fc.oneof(fc.stringMatching(/^([a-z0-9.-]{1,10}\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,10}[a-zA-Z0-9])?$/), fc.constantFrom('', 'a/', '/a', 'a'.repeat(64), '-a', '__proto__'), fc.string({ maxLength: 8 }));
const labelValue = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,8}[a-zA-Z0-9])?$/), fc.constantFrom('', '-', 'a'.repeat(64), '99999999999999999999999999', '1e308', '-1'), fc.string({ maxLength: 8 }));
const labelRequirement = fc.oneof(
  fc.tuple(labelKey, fc.constantFrom('=', '==', '!=', '>', '<', '=>', ''), labelValue).map(([k, op, v]) => `${k}${op}${v}`),
  fc.tuple(fc.constantFrom('', '!'), labelKey).map(([not, k]) => `${not}${k}`),
  fc.tuple(labelKey, fc.constantFrom(' in ', ' notin ', ' In ', ' in', 'in '), fc.array(labelValue, { maxLength: 3 }), fc.boolean()).map(([k, op, vs, close]) => `${k}${op}(${vs.join(',')}${close ? ')' : ''}`),
  fc.string({ maxLength: 15 }),
);
export const labelSelector: fc.Arbitrary<string> = fc.array(labelRequirement, { maxLength: 4 }).map((rs) => rs.join(','));

const fieldKey = fc.oneof(fc.constantFrom('metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'status.phase', 'data.a', '', 'metadata', 'metadata.labels.a', '__proto__'), fc.string({ maxLength: 10 }));
export const fieldSelector: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.tuple(fieldKey, fc.constantFrom('=', '==', '!=', '', '<'), fc.oneof(name, labelValue)).map(([k, op, v]) => `${k}${op}${v}`), fc.string({ maxLength: 15 })), { maxLength: 3 })
  .map((rs) => rs.join(','));

/** Every query parameter a resource path reads, with valid values, near misses and garbage. */
const QUERY_VALUES: Record<string, readonly string[]> = {
  resourceVersion: ['', '0', '1', '-1', '18446744073709551616', '99999999999999999999999', '1e3', 'abc', ' 1', '0x10'],
  resourceVersionMatch: ['', 'NotOlderThan', 'Exact', 'exact', 'x'],
  limit: ['', '0', '1', '-1', '500', '1e3', '9007199254740993', 'x', '1.5'],
  continue: ['', 'x', 'eyJ9', 'eyJydiI6MX0', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0', '%00'],
  timeoutSeconds: ['', '0', '1', '-1', '1e9', '99999999999999999999', 'x', '1.5'],
  dryRun: ['', 'All', 'all', 'x', 'All,All', 'None'],
  fieldManager: ['', 'm', 'a'.repeat(200), '\u0001', 'kubectl'],
  fieldValidation: ['', 'Ignore', 'Warn', 'Strict', 'strict', 'x'],
  propagationPolicy: ['', 'Orphan', 'Background', 'Foreground', 'x'],
  gracePeriodSeconds: ['', '0', '-1', '30', 'x', '1e30'],
  orphanDependents: ['', 'true', 'false', 'True', '1', 'x'],
  watch: ['', 'true', 'false', '1', '0', 'True', 't', 'x'],
  allowWatchBookmarks: ['', 'true', 'x'],
  sendInitialEvents: ['', 'true', 'false', 'x'],
  force: ['', 'true', 'false', 'x'],
  pretty: ['', 'true', '1', 'x'],
  labelSelector: ['', 'a=b', 'a in (', '!', '=='],
  fieldSelector: ['', 'metadata.name=x', 'x=y', '=', 'metadata.name'],
  includeUninitialized: ['true'],
  export: ['true'],
};

export const queryParam: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.constantFrom(...Object.keys(QUERY_VALUES)).chain((k) => fc.tuple(fc.constant(k), fc.oneof(fc.constantFrom(...QUERY_VALUES[k]!), fc.string({ maxLength: 12 })))),
  fc.tuple(fc.oneof(fc.constantFrom('__proto__', 'constructor', ''), fc.string({ maxLength: 8 })), fc.string({ maxLength: 8 })),
);

export const query: fc.Arbitrary<string> = fc.array(queryParam, { maxLength: 5 }).map((params) => params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

/** Authorization header values: malformed schemes and tokens. */
export const authorization: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.constantFrom('Bearer ', 'bearer ', 'Bearer  ', 'Bearer', 'Basic ', 'Bearer\t', ' Bearer '), fc.string({ maxLength: 40 })).map(([s, t]) => s + t),
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer ...', 'Bearer eyJ.eyJ.', 'Bearer e30.e30.e30', 'Basic YWRtaW46YWRtaW4='),
);

/** Claims of a service-account JWT, each valid, odd, or of the wrong type. */
export const jwtClaims: fc.Arbitrary<Tree> = fc
  .record({
    iss: fc.option(fc.oneof(fc.constant<Tree>('https://kubernetes.default.svc.cluster.local'), scalar), { nil: undefined }),
    sub: fc.option(fc.oneof(fc.constantFrom<Tree>('system:serviceaccount:fuzz:default', 'system:serviceaccount::', 'system:serviceaccount:fuzz', 'admin'), scalar), { nil: undefined }),
    aud: fc.option(fc.oneof(fc.constant<Tree>(['https://kubernetes.default.svc.cluster.local']), fc.constant<Tree>('https://kubernetes.default.svc.cluster.local'), tree), { nil: undefined }),
    exp: fc.option(fc.oneof(fc.constantFrom<Tree>(1e308, -1, 0, 4102444800, 2 ** 53 + 1, '4102444800', 1.5), scalar), { nil: undefined }),
    nbf: fc.option(fc.oneof(fc.constantFrom<Tree>(1e308, -1e308, 0), scalar), { nil: undefined }),
    iat: fc.option(fc.oneof(fc.constantFrom<Tree>(1e308, 0), scalar), { nil: undefined }),
    'kubernetes.io': fc.option(tree, { nil: undefined }),
    extra: fc.option(fc.tuple(key, tree), { nil: undefined }),
  })
  .map(({ extra, ...fields }) => entriesOf({ ...fields, ...(extra ? { [extra[0]]: extra[1] } : {}) }));

/** JOSE headers: algorithms the server accepts and ones it must refuse. */
export const jwtHeader: fc.Arbitrary<Tree> = fc
  .record({
    alg: fc.option(fc.oneof(fc.constantFrom<Tree>('RS256', 'none', 'HS256', 'ES256', 'PS256', 'rs256', ''), scalar), { nil: undefined }),
    typ: fc.option(fc.oneof(fc.constant<Tree>('JWT'), scalar), { nil: undefined }),
    kid: fc.option(scalar, { nil: undefined }),
    crit: fc.option(tree, { nil: undefined }),
  })
  .map((fields) => entriesOf(fields));
