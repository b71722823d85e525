import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogFile, auditEvaluator, parseAuditPolicy, type AuditEvent } from '../../../src/apiserver/audit/index.js';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { apiServerConfig, apiServerFlags } from '../../../src/cli/apiserver-flags.js';
import { FlagError, parseFlags } from '../../../src/cli/flags.js';
import { kubectl, requireKubectl } from '../../support/kubectl.js';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/openapi*", "/api", "/api/*", "/apis", "/apis/*"]
    verbs: [get]
    userGroups: [system:unauthenticated, system:authenticated, system:masters]
  - level: Metadata
    resources:
      - group: ""
        resources: [secrets]
    omitStages: [RequestReceived]
  - level: None
    resources:
      - group: ""
        resources: [events]
  - level: Request
    verbs: [list]
    omitStages: [RequestReceived]
  - level: RequestResponse
    resources:
      - group: ""
        resources: [configmaps, pods/log]
  - level: Metadata
    omitStages: [RequestReceived]
`;

/** The audit log's events so far. */
function events(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);
}

describe('the audit log of a real server, driven by kubectl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
  const log = join(dir, 'audit.log');
  let server: RunningApiServer;
  beforeAll(async () => {
    requireKubectl();
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    server = await startApiServer([
      '--storage=memory',
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      `--data-dir=${join(dir, 'data')}`,
      `--audit-log-path=${log}`,
      `--audit-policy-file=${join(dir, 'policy.yaml')}`,
    ]);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs a create at RequestResponse with both objects, at RequestReceived and ResponseComplete', async () => {
    const made = await kubectl(server.svcconfigPath, ['create', 'configmap', 'audited', '--from-literal=color=blue']);
    expect(made.code, made.stderr).toBe(0);
    // The lines are written once per event-loop turn.
    await new Promise((resolve) => setImmediate(resolve));
    const mine = events(log).filter((e) => e.objectRef?.resource === 'configmaps' && e.verb === 'create');
    expect(mine.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = mine as [AuditEvent, AuditEvent];
    expect(received.auditID).toBe(complete.auditID);
    expect(complete).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      requestURI: expect.stringContaining('/api/v1/namespaces/default/configmaps') as unknown as string,
      user: { username: 'svc-admin', groups: expect.arrayContaining(['system:masters']) as unknown as string[] },
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { kind: 'ConfigMap', data: { color: 'blue' } },
      responseObject: { kind: 'ConfigMap', metadata: { name: 'audited' }, data: { color: 'blue' } },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(complete.sourceIPs).toContain('127.0.0.1');
    expect(complete.userAgent).toMatch(/^kubectl/);
    expect(Date.parse(complete.stageTimestamp)).toBeGreaterThanOrEqual(Date.parse(complete.requestReceivedTimestamp));
    expect(complete.requestReceivedTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('logs a secret at Metadata: its data never reaches the log', async () => {
    const made = await kubectl(server.svcconfigPath, ['create', 'secret', 'generic', 'hidden', '--from-literal=password=hunter2-very-secret']);
    expect(made.code, made.stderr).toBe(0);
    const got = await kubectl(server.svcconfigPath, ['get', 'secret', 'hidden', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(Buffer.from('hunter2-very-secret').toString('base64'));
    const secretEvents = events(log).filter((e) => e.objectRef?.resource === 'secrets');
    expect(secretEvents.map((e) => `${e.verb} ${e.stage}`)).toEqual(['create ResponseComplete', 'get ResponseComplete']);
    for (const e of secretEvents) {
      expect(e.level).toBe('Metadata');
      expect(e).not.toHaveProperty('requestObject');
      expect(e).not.toHaveProperty('responseObject');
    }
    expect(secretEvents[1]).toMatchObject({ objectRef: { resource: 'secrets', name: 'hidden', namespace: 'default' }, responseStatus: { code: 200 } });
  });

  it('logs a refused request with the Status it got, and one refused by authentication with no user', async () => {
    const missing = await kubectl(server.svcconfigPath, ['get', 'configmap', 'nope']);
    expect(missing.code).not.toBe(0);
    const agent = new Agent({ connect: { ca: server.caPem! } });
    try {
      const res = await request(`${server.url}/api/v1/namespaces`, { dispatcher: agent, headers: { authorization: 'Bearer wrong' } });
      expect(res.statusCode).toBe(401);
      await res.body.text();
      expect(res.headers['audit-id']).toBeDefined();
    } finally {
      await agent.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    const all = events(log);
    const notFound = all.find((e) => e.objectRef?.name === 'nope' && e.stage === 'ResponseComplete');
    expect(notFound).toMatchObject({ verb: 'get', responseStatus: { code: 404, status: 'Failure', reason: 'NotFound' } });
    const unauthorized = all.find((e) => e.responseStatus?.code === 401);
    expect(unauthorized).toMatchObject({ stage: 'ResponseComplete', user: { username: '' }, verb: 'list', objectRef: { resource: 'namespaces' } });
  });

  it('logs a list at Request level without the response, and a watch at ResponseStarted and ResponseComplete', async () => {
    const listed = await kubectl(server.svcconfigPath, ['get', 'namespaces']);
    expect(listed.code, listed.stderr).toBe(0);
    const watched = await kubectl(server.svcconfigPath, ['get', 'serviceaccounts', '--watch', '--request-timeout=1s']);
    expect(watched.code).not.toBe(-1);
    await new Promise((resolve) => setImmediate(resolve));
    const all = events(log);
    const list = all.find((e) => e.verb === 'list' && e.objectRef?.resource === 'namespaces' && e.user.username === 'svc-admin');
    expect(list).toMatchObject({ level: 'Request', stage: 'ResponseComplete', responseStatus: { code: 200 } });
    expect(list).not.toHaveProperty('responseObject');
    const watch = all.filter((e) => e.verb === 'watch' && e.objectRef?.resource === 'serviceaccounts');
    expect(watch.map((e) => e.stage)).toEqual(['ResponseStarted', 'ResponseComplete']);
    expect(watch[0]!.auditID).toBe(watch[1]!.auditID);
  });
});

describe('audit policies', () => {
  it('match users, groups, verbs, resources by group and name, namespaces and non-resource URLs, first rule winning', () => {
    const decide = auditEvaluator(
      parseAuditPolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    users: [system:svc-scheduler]
  - level: RequestResponse
    userGroups: [auditors]
    verbs: [delete]
  - level: Request
    resources:
      - group: rbac.authorization.k8s.io
        resources: [roles]
        resourceNames: [watched]
  - level: Metadata
    resources:
      - group: apps
        resources: ["*/scale"]
    namespaces: [prod]
  - level: Metadata
    nonResourceURLs: ["/metrics", "/debug/*"]
`),
    );
    const resource = (group: string, res: string, extra: { subresource?: string; namespace?: string; name?: string } = {}) => ({
      group,
      resource: res,
      subresource: extra.subresource,
      namespace: extra.namespace,
      name: extra.name,
    });
    const base = { user: 'alice', groups: ['system:authenticated'], verb: 'get', path: '/x' };
    expect(decide({ ...base, user: 'system:svc-scheduler', verb: 'delete', groups: ['auditors'], resource: resource('', 'pods') }).level).toBe('None');
    expect(decide({ ...base, verb: 'delete', groups: ['auditors'], resource: resource('', 'pods') }).level).toBe('RequestResponse');
    // Either spelling of svc's groups matches.
    expect(decide({ ...base, resource: resource('rbac.authorization.svc.io', 'roles', { name: 'watched', namespace: 'a' }) }).level).toBe('Request');
    expect(decide({ ...base, resource: resource('rbac.authorization.svc.io', 'roles', { name: 'other', namespace: 'a' }) }).level).toBe('None');
    expect(decide({ ...base, resource: resource('apps', 'deployments', { subresource: 'scale', namespace: 'prod', name: 'web' }) }).level).toBe('Metadata');
    expect(decide({ ...base, resource: resource('apps', 'deployments', { subresource: 'scale', namespace: 'dev', name: 'web' }) }).level).toBe('None');
    expect(decide({ ...base, resource: resource('apps', 'deployments', { namespace: 'prod', name: 'web' }) }).level).toBe('None');
    expect(decide({ ...base, path: '/metrics' }).level).toBe('Metadata');
    expect(decide({ ...base, path: '/debug/pprof/heap' }).level).toBe('Metadata');
    expect(decide({ ...base, path: '/version' }).level).toBe('None');
  });

  it('are refused with the field at fault: an unknown level, a stray field, no rules', () => {
    expect(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]', 'p.yaml')).toThrow(/p\.yaml: rules\.0\.level/);
    expect(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, user: [a]}]')).toThrow(/rules\.0/);
    expect(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []')).toThrow(/at least one rule/);
    expect(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]')).toThrow(/apiVersion/);
  });

  it('are required with --audit-log-path', () => {
    const config = (argv: string[]) => {
      const parsed = parseFlags(apiServerFlags, argv);
      if (parsed.help) throw new Error('help');
      return apiServerConfig(parsed.values);
    };
    expect(() => config(['--audit-log-path=/tmp/audit.log'])).toThrow(FlagError);
    const both = config(['--audit-log-path=-', '--audit-policy-file=p.yaml', '--audit-log-maxsize=10']);
    expect(both.audit).toMatchObject({ logPath: '-', policyFile: 'p.yaml', maxSizeMegabytes: 10 });
    expect(both.flowControl).toEqual({ maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 });
  });
});

describe('the audit log file', () => {
  it('rotates at --audit-log-maxsize and keeps --audit-log-maxbackup rotated files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-rotate-'));
    try {
      const file = new AuditLogFile({ path: join(dir, 'audit.log'), maxSizeMegabytes: 1, maxBackups: 2 });
      const line = 'x'.repeat(300 * 1024);
      for (let i = 0; i < 12; i++) {
        file.write(`${i} ${line}`);
        file.flush();
        // Distinct rotation stamps: they have millisecond precision.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      file.close();
      const names = readdirSync(dir).sort();
      expect(names).toContain('audit.log');
      const rotated = names.filter((n) => n !== 'audit.log');
      expect(rotated).toHaveLength(2);
      for (const name of rotated) expect(name).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
      // The newest lines are in the live file, the ones before in the newest backup.
      expect(readFileSync(join(dir, 'audit.log'), 'utf8')).toMatch(/^9 x/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
