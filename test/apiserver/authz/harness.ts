import type { FastifyInstance, InjectOptions } from 'fastify';
import { unauthorized } from '../../../src/api/index.js';
import { buildApp, type ApiServerOptions, type UserInfo } from '../../../src/apiserver/index.js';
import { openTestStore, type BackendName } from '../harness.js';
import type { Store } from '../../../src/storage/index.js';
import { waitUntil } from '../../support/wait.js';

/** The people of the authorization suites: each token is its user's, groups exactly as given. */
export const USERS = {
  admin: { name: 'admin', uid: 'u-admin', groups: ['system:masters', 'system:authenticated'] },
  alice: { name: 'alice', uid: 'u-alice', groups: ['system:authenticated'] },
  bob: { name: 'bob', uid: 'u-bob', groups: ['team-b', 'system:authenticated'] },
  carol: { name: 'carol', uid: 'u-carol', groups: ['system:authenticated'] },
  dave: { name: 'dave', uid: 'u-dave', groups: ['system:authenticated'] },
  erin: { name: 'erin', uid: 'u-erin', groups: ['system:authenticated'] },
  frank: { name: 'frank', uid: 'u-frank', groups: [] },
  grace: { name: 'grace', uid: 'u-grace', groups: ['system:authenticated'] },
  henry: { name: 'henry', uid: 'u-henry', groups: ['system:authenticated'] },
  ivy: { name: 'ivy', uid: 'u-ivy', groups: ['system:authenticated'] },
  jack: { name: 'jack', uid: 'u-jack', groups: ['system:authenticated'] },
  kate: { name: 'kate', uid: 'u-kate', groups: ['system:authenticated'] },
  nobody: { name: 'nobody', uid: 'u-nobody', groups: [] },
  builder: {
    name: 'system:serviceaccount:ns-a:builder',
    uid: 'u-builder',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns-a', 'system:authenticated'],
  },
} satisfies Record<string, UserInfo>;

export type UserName = keyof typeof USERS;

export const tokenOf = (user: UserName) => `token-${user}`;

export interface Answer {
  status: number;
  body: any;
}

export interface AuthzServer {
  app: FastifyInstance;
  store: Store;
  /** A request as `user`, JSON in and out. */
  as(user: UserName, method: string, url: string, body?: unknown, contentType?: string): Promise<Answer>;
  close(): Promise<void>;
}

/** A server over a fresh store whose callers are USERS, by bearer token. */
export async function startAuthzServer(backend: BackendName, options: Pick<ApiServerOptions, 'authorization'> = {}): Promise<AuthzServer> {
  const { store, dispose } = await openTestStore(backend);
  const byToken = new Map<string, UserInfo>(Object.entries(USERS).map(([k, u]) => [`Bearer ${tokenOf(k as UserName)}`, u]));
  const app = await buildApp({
    store,
    authenticate: (headers) => {
      const auth = headers['authorization'];
      if (auth === undefined) return undefined;
      const user = typeof auth === 'string' ? byToken.get(auth) : undefined;
      if (!user) throw unauthorized('Unauthorized');
      return user;
    },
    ...options,
  });
  return {
    app,
    store,
    async as(user, method, url, body, contentType = 'application/json') {
      const res = await app.inject({
        method: method as InjectOptions['method'],
        url,
        headers: { authorization: `Bearer ${tokenOf(user)}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.statusCode, body: parsed };
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}

/** Polls `check` until it holds (test/support/wait.ts bounds it; no timing is asserted). */
export async function eventually(check: () => Promise<boolean>): Promise<void> {
  await waitUntil(check, 'the condition');
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

export const clusterRole = (name: string, rules: object[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules });
export const role = (namespace: string, name: string, rules: object[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules });
export const subject = (kind: 'User' | 'Group' | 'ServiceAccount', name: string, namespace?: string) => ({
  kind,
  name,
  ...(kind === 'ServiceAccount' ? { namespace } : { apiGroup: 'rbac.authorization.k8s.io' }),
});
export const clusterRoleBinding = (name: string, roleName: string, subjects: object[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects,
});
export const roleBinding = (namespace: string, name: string, roleKind: 'Role' | 'ClusterRole', roleName: string, subjects: object[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
  subjects,
});

/** Creates RBAC objects as the admin; fails the test on anything but 201. */
export async function applyRbac(server: AuthzServer, objects: readonly { kind: string; metadata: { name: string; namespace?: string } }[]): Promise<void> {
  for (const o of objects) {
    const plural = `${o.kind.toLowerCase()}s`;
    const url = o.metadata.namespace ? `${RBAC}/namespaces/${o.metadata.namespace}/${plural}` : `${RBAC}/${plural}`;
    const res = await server.as('admin', 'POST', url, o);
    if (res.status !== 201) throw new Error(`creating ${o.kind} ${o.metadata.name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
