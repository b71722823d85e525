/**
 * The dashboard against a whole `svc up` cluster (API server, controller manager, scheduler, a
 * node with its own containerd), driven by kubectl, seen in Debian's chromium through
 * playwright-core: the Controllers view (the manager's live stream through the dashboard:
 * leadership, queues, each reconcile's result, the rate and latency plots), a pod's log
 * followed live, an object's owner tree and its Events, and a frozen or closed tab's watch
 * ended by the server (its watcher count back where it was).
 * With DASHBOARD_SCREENSHOTS=1 it also writes docs/dashboard-{controllers,logs,owners}.png.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../src/client/index.js';
import { eventually } from '../controllers/support.js';
import { launchChromium } from '../support/chromium.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

const docs = join(import.meta.dirname, '..', '..', 'docs');
const screenshots = process.env['DASHBOARD_SCREENSHOTS'] === '1';
// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-dash-');
const config = join(dir, 'admin.svcconfig');
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);
/** Where the flood of the slow-tab test goes: big objects, so every buffer on the way fills fast. */
const FLOOD = 'flood';

let up: UpProcess | undefined;
let browser: Browser;
let page: Page;
let dashboardUrl: string;
let managerUrl: string;
let client: Client;
const pageErrors: string[] = [];

/** `apiserver_registered_watchers` of one kind, as the API server reports it. */
async function watchers(kind: string): Promise<number> {
  const metrics = await k(['get', '--raw', '/metrics']);
  const line = metrics.stdout.split('\n').find((l) => l.startsWith('apiserver_registered_watchers{') && l.includes(`kind="${kind}"`) && l.includes('group=""'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  requireKubectl();
  // A small watch buffer: a frozen tab's watch is dropped after a few megabytes, not hundreds.
  up = spawnUp(dir, ['--watch-buffer-events=20']);
  dashboardUrl = (await up.line((line) => line.startsWith('dashboard: '))).slice('dashboard: '.length);
  managerUrl = (await up.line((line) => line.startsWith('controller manager: '))).slice('controller manager: '.length).split(' ')[0]!;
  await up.line((line) => line.startsWith('  kubectl'));
  await eventually(async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 'the node to be Ready', 60_000);
  expect((await k(['create', 'namespace', 'dash'])).code).toBe(0);
  expect((await k(['create', 'namespace', FLOOD])).code).toBe(0);
  client = await Client.fromSvcconfig(config);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(dashboardUrl);
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await client?.destroy();
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    const stopped = await Promise.race([up.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000))]);
    if (!stopped) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

const sleeper = (name: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: dash }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: svc.local/busybox:latest
          imagePullPolicy: IfNotPresent
          command: ["sh", "-c", "i=0; while true; do echo tick-$i; i=$((i+1)); sleep 0.5; done"]
`;

const nav = (view: string) => page.locator(`nav button[data-view="${view}"]`).click();

describe('the dashboard against svc up', () => {
  it("serves the manager's live stream only to an authenticated, authorized reader", async () => {
    // No credential: the manager asks the API server (SubjectAccessReview) and anonymous may not.
    // Its certificate is the cluster CA's, as svc up makes it.
    const agent = new Agent({ connect: { ca: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8') } });
    try {
      const anonymous = await request(`${managerUrl}/live/controllers`, { dispatcher: agent });
      expect(anonymous.statusCode).toBe(403);
      expect(((await anonymous.body.json()) as { kind: string }).kind).toBe('Status');
      // With the admin's token it is the stream.
      const token = (await k(['config', 'view', '--raw', '-o', 'jsonpath={.users[0].user.token}'])).stdout;
      const admin = await request(`${managerUrl}/live/controllers`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
      expect(admin.statusCode).toBe(200);
      expect(admin.headers['content-type']).toBe('text/event-stream');
      // Hanging up is this reader's doing: the abort it causes is expected.
      admin.body.on('error', () => undefined);
      admin.body.destroy();
    } finally {
      await agent.destroy();
    }
    // The dashboard's proxy forwards reads only.
    const post = await fetch(new URL('/controllers/live', dashboardUrl), { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('shows the controllers: leadership, queues, each reconcile as kubectl changes a Deployment, and the plots', async () => {
    await nav('controllers');
    await expect.poll(() => page.locator('#controllers-leading').textContent()).toBe('leading');
    await page.locator('#controllers-loops tr').first().waitFor();
    expect((await k(['apply', '-f', '-'], sleeper('web'))).code).toBe(0);
    // The deployment loop's result for the new Deployment: its key, an outcome, a duration.
    const result = page.locator('#controllers-results tr[data-key="dash/web"]').first();
    await result.waitFor({ timeout: 20_000 });
    const cells = await result.locator('td').allTextContents();
    // Time, controller, outcome, duration, attempts, key, error.
    expect(cells[5]).toBe('dash/web');
    expect(cells[2]).toMatch(/^(awaitChange|requeueAfter|retry|terminal)/);
    expect(Number(cells[3])).toBeGreaterThanOrEqual(0);
    // Selecting a loop narrows the list to its results.
    const controller = cells[1]!;
    await page.locator(`#controllers-loops tr[data-loop="${controller}"]`).click();
    await expect.poll(async () => new Set(await page.locator('#controllers-results tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-controller'))))).toEqual(new Set([controller]));
    // A scale is one more reconcile of the same key, seen live.
    const before = await page.locator('#controllers-results tr[data-key="dash/web"]').count();
    expect((await k(['scale', '-n', 'dash', 'deployment/web', '--replicas=2'])).code).toBe(0);
    await expect.poll(() => page.locator('#controllers-results tr[data-key="dash/web"]').count()).toBeGreaterThan(before);
    // The plots take a sample per snapshot (one a second) and draw on a canvas.
    await expect.poll(async () => Number(await page.locator('#plot-reconcile-rate').getAttribute('data-samples'))).toBeGreaterThan(2);
    await page.locator('#plot-reconcile-rate canvas').waitFor();
    await page.locator('#plot-reconcile-latency canvas').waitFor();
    await page.locator('#controllers-all').click();
    if (screenshots) {
      // A picture with some history in its plots.
      await expect.poll(async () => Number(await page.locator('#plot-reconcile-rate').getAttribute('data-samples'))).toBeGreaterThan(15);
      await page.locator('#controllers-loops').evaluate((body) => body.closest('.scroller')!.scrollTo(0, 0));
      await page.screenshot({ path: join(docs, 'dashboard-controllers.png') });
    }
  }, 90_000);

  it("shows a pod's owner tree and its Events, live", async () => {
    await nav('resources');
    await page.locator('li[data-type="pods"]').click();
    await page.locator('#namespace option[value="dash"]').waitFor({ state: 'attached' });
    await page.locator('#namespace').selectOption('dash');
    await eventually(async () => (await k(['get', 'pods', '-n', 'dash', '-l', 'app=web', '-o', 'name'])).stdout.trim() !== '', 'a pod of web', 30_000);
    const pod = (await k(['get', 'pods', '-n', 'dash', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const podUid = (await k(['get', 'pod', '-n', 'dash', pod, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const replicaSet = (await k(['get', 'replicasets', '-n', 'dash', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await page.locator(`tr.row[data-key="dash/${pod}"]`).click();
    // Deployment → ReplicaSet → Pods, the opened pod marked.
    const tree = page.locator('#owner-tree');
    await tree.waitFor();
    await tree.locator('li[data-node="Deployment/web"] > ul > li[data-node="ReplicaSet/' + replicaSet + '"]').waitFor();
    await tree.locator(`li.self[data-node="Pod/${pod}"]`).waitFor();
    // An Event about the pod, made with kubectl while the panel is open, appears.
    const event = `
apiVersion: v1
kind: Event
metadata: { name: ${pod}.dashboard, namespace: dash }
involvedObject: { kind: Pod, namespace: dash, name: ${pod}, uid: ${podUid} }
reason: DashboardTest
message: seen in the object's Events
type: Warning
count: 1
`;
    expect((await k(['create', '-f', '-'], event)).code).toBe(0);
    await page.locator('#object-events tr', { hasText: 'seen in the object\'s Events' }).waitFor({ timeout: 20_000 });
    // The pod's own Events from the cluster (the scheduler's at least) are there too.
    await page.locator('#object-events tr', { hasText: 'Scheduled' }).waitFor({ timeout: 20_000 });
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-owners.png') });
    // Opening the ReplicaSet shows the same tree from its place.
    await page.locator('li[data-type="replicasets.apps"]').click();
    await page.locator(`tr.row[data-key="dash/${replicaSet}"]`).click();
    await page.locator(`#owner-tree li.self[data-node="ReplicaSet/${replicaSet}"]`).waitFor();
  }, 90_000);

  it("follows a pod's log live", async () => {
    await page.locator('li[data-type="pods"]').click();
    await eventually(async () => (await k(['get', 'pods', '-n', 'dash', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.phase}'])).stdout.split(' ').includes('Running'), 'a running pod of web', 60_000);
    const pods = (await k(['get', 'pods', '-n', 'dash', '-l', 'app=web', '-o', 'jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name}{"\\n"}{end}'])).stdout.split('\n').filter(Boolean);
    const pod = pods[0]!;
    await page.locator(`tr.row[data-key="dash/${pod}"]`).click();
    await page.locator('#show-logs').click();
    const log = page.locator('#pod-log');
    await expect.poll(() => log.getAttribute('data-state')).toBe('following');
    await expect.poll(() => log.textContent()).toMatch(/tick-\d+/);
    // Followed: lines the container prints after the page opened the log arrive.
    const last = async () => Math.max(...[...((await log.textContent()) ?? '').matchAll(/tick-(\d+)/g)].map((m) => Number(m[1])));
    const seen = await last();
    const printed = await k(['logs', '-n', 'dash', pod, '--tail=1']);
    expect(printed.stdout).toMatch(/tick-\d+/);
    await expect.poll(last).toBeGreaterThan(seen + 2);
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-logs.png') });
    await page.locator('#close-object').click();
  }, 90_000);

  it('ends the watch of a closed tab: the server counts its watchers back down', async () => {
    const baseline = await watchers('ConfigMap');
    const tab = await browser.newPage();
    await tab.goto(dashboardUrl);
    await tab.locator('li[data-type="configmaps"]').click();
    await expect.poll(() => tab.locator('#resource-title').textContent()).toBe('ConfigMap');
    await expect.poll(() => watchers('ConfigMap')).toBe(baseline + 1);
    await tab.close();
    await expect.poll(() => watchers('ConfigMap')).toBe(baseline);
  }, 60_000);

  it("drops a frozen tab: the server ends its watch when events wait past the buffer", async () => {
    const baseline = await watchers('Secret');
    const tab = await browser.newPage();
    await tab.goto(dashboardUrl);
    // The inspector's raw watch carries whole objects (the tables carry rows of metadata).
    await tab.locator('nav button[data-view="inspector"]').click();
    await tab.locator('#inspector-type option[value="secrets"]').waitFor({ state: 'attached' });
    await tab.locator('#inspector-type').selectOption('secrets');
    await tab.locator('#inspector-namespace').fill(FLOOD);
    await tab.locator('#inspector-start').click();
    await expect.poll(() => watchers('Secret')).toBe(baseline + 1);
    // Freeze the tab's script, as a hung page: it reads nothing more from its watch.
    const cdp = await tab.context().newCDPSession(tab);
    await cdp.send('Debugger.enable');
    await cdp.send('Debugger.pause');
    // Big Secrets: chromium's buffer, two sockets and the proxy fill, then the server's watch
    // buffer (20 events here) overflows and the server ends that watch.
    const blob = Buffer.alloc(256 * 1024, 'x').toString('base64');
    await eventually(
      async () => {
        await Promise.all(Array.from({ length: 8 }, () => client.create(builtin.secrets, { metadata: { generateName: 'big-', namespace: FLOOD }, data: { blob } } as never)));
        if ((await watchers('Secret')) !== baseline) return false;
        // Read again with no write between: an informer of the manager that the flood dropped
        // too is back by now (it resumes at once); the frozen tab's watch never comes back.
        return (await watchers('Secret')) === baseline;
      },
      "the server to end the frozen tab's watch",
      90_000,
    );
    // Awake again, the tab finds its watch ended by the server, and opens none (the inspector
    // does not reconnect): the server's count stays where it was before the tab.
    await cdp.send('Debugger.resume');
    await expect.poll(() => tab.locator('#inspector-stats').textContent()).toContain('ended by the server');
    expect(await watchers('Secret')).toBe(baseline);
    await tab.close();
  }, 150_000);

  it('raised no error in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
