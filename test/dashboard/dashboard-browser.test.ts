/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core (both installed
 * by scripts/provision.mjs), against an in-process cluster. ConfigMaps created, changed and
 * deleted by a client appear, change and go in the live table; the namespace and label filters
 * narrow it; a clicked row shows its YAML, following changes; a CustomResourceDefinition shows up
 * in the resource picker; the watch inspector shows the raw events, pauses, resumes and exports
 * them as the test kit's NDJSON. With DASHBOARD_SCREENSHOTS=1 it also writes docs/dashboard-*.png.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, resource } from '../../src/client/index.js';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { launchChromium } from '../support/chromium.js';

const docs = join(import.meta.dirname, '..', '..', 'docs');
const screenshots = process.env['DASHBOARD_SCREENSHOTS'] === '1';

let cluster: TestCluster;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ['browser', 'other', 'many'] });
  dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 760 }, acceptDownloads: true });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(dashboard.url);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await cluster?.stop();
});

const row = (key: string) => page.locator(`tr.row[data-key="${key}"]`);

describe('dashboard in chromium', () => {
  it('lists resource types from discovery and shows a live ConfigMap table', async () => {
    await page.locator('li[data-type="configmaps"]').click();
    await expect.poll(() => page.locator('#resource-title').textContent()).toBe('ConfigMap');
    await page.locator('#namespace option[value="browser"]').waitFor({ state: 'attached' });
    await page.locator('#namespace').selectOption('browser');

    await cluster.client.create(builtin.configMaps, { metadata: { name: 'alpha', namespace: 'browser', labels: { app: 'web' } }, data: { a: '1' } });
    await row('browser/alpha').waitFor();
    // The server's Table columns: Name, Data, Age.
    expect(await page.locator('thead th').allTextContents()).toEqual(['Name', 'Data', 'Age']);
    await expect.poll(() => row('browser/alpha').locator('td').nth(1).textContent()).toBe('1');

    await cluster.client.patch(builtin.configMaps, 'alpha', { data: { a: '1', b: '2' } }, { namespace: 'browser' });
    await expect.poll(() => row('browser/alpha').locator('td').nth(1).textContent()).toBe('2');

    // Another namespace's object is not in this namespace's table.
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'elsewhere', namespace: 'other' } });
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'beta', namespace: 'browser' } });
    await row('browser/beta').waitFor();
    expect(await row('other/elsewhere').count()).toBe(0);
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-resources.png') });

    await cluster.client.delete(builtin.configMaps, 'beta', { namespace: 'browser' });
    await row('browser/beta').waitFor({ state: 'detached' });
    expect(await row('browser/alpha').count()).toBe(1);
  });

  it('filters by label selector', async () => {
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'gamma', namespace: 'browser' } });
    await row('browser/gamma').waitFor();
    await page.locator('#label-selector').fill('app=web');
    await page.locator('#label-selector').press('Enter');
    await row('browser/gamma').waitFor({ state: 'detached' });
    await row('browser/alpha').waitFor();
    // Live under the selector too: a new matching object appears.
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'delta', namespace: 'browser', labels: { app: 'web' } } });
    await row('browser/delta').waitFor();
    expect(await row('browser/gamma').count()).toBe(0);
  });

  it('filters by field selector, and says why the server refused a bad one', async () => {
    await page.locator('#field-selector').fill('metadata.name=delta');
    await page.locator('#field-selector').press('Enter');
    await row('browser/alpha').waitFor({ state: 'detached' });
    await row('browser/delta').waitFor();
    await page.locator('#field-selector').fill('spec.nothing=x');
    await page.locator('#field-selector').press('Enter');
    await expect.poll(() => page.locator('#row-count').textContent()).toMatch(/field label not supported|not supported/i);
    await page.locator('#field-selector').fill('');
    await page.locator('#field-selector').press('Enter');
    await row('browser/alpha').waitFor();
  });

  it("shows a clicked object's YAML and JSON, following its changes", async () => {
    await row('browser/alpha').click();
    await expect.poll(() => page.locator('#object-text').textContent()).toContain('name: alpha');
    await cluster.client.patch(builtin.configMaps, 'alpha', { data: { c: 'three' } }, { namespace: 'browser' });
    await expect.poll(() => page.locator('#object-text').textContent()).toContain('c: three');
    // The changed line is marked.
    await expect.poll(() => page.locator('#object-text mark.changed').allTextContents()).toContain('  c: three');
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-object.png') });
    await page.locator('#show-json').click();
    await expect.poll(() => page.locator('#object-text').textContent()).toContain('"name": "alpha"');
  });

  it('picks up a custom resource type as its definition is created', async () => {
    await cluster.client.create(resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false }), {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    } as never);
    await page.locator('li[data-type="widgets.example.com"]').waitFor();
    await page.locator('li[data-type="widgets.example.com"]').click();
    await expect.poll(() => page.locator('#resource-title').textContent()).toBe('Widget');
    const widgets = resource({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' });
    await page.locator('#label-selector').fill('');
    await page.locator('#label-selector').press('Enter');
    await cluster.client.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'browser' } } as never);
    await row('browser/w1').waitFor();
  });

  it('inspects a watch: raw events, pause and resume, NDJSON export', async () => {
    await page.locator('nav button[data-view="inspector"]').click();
    await page.locator('#inspector-type').selectOption('configmaps');
    await page.locator('#inspector-namespace').fill('other');
    await page.locator('#inspector-start').click();
    // The watch begins with the namespace's current objects.
    await page.locator('#inspector-events tr', { hasText: 'other/elsewhere' }).waitFor();

    const created = await cluster.client.create(builtin.configMaps, { metadata: { name: 'epsilon', namespace: 'other' } });
    const changed = await cluster.client.patch(builtin.configMaps, 'epsilon', { data: { x: 'y' } }, { namespace: 'other' });
    await cluster.client.delete(builtin.configMaps, 'epsilon', { namespace: 'other' });
    const events = page.locator('#inspector-events tr', { hasText: 'other/epsilon' });
    await expect.poll(() => events.count()).toBe(3);
    // Newest first: type, resourceVersion, name, bytes.
    const cells = async (i: number) => events.nth(i).locator('td').allTextContents();
    expect((await cells(2)).slice(1, 4)).toEqual(['ADDED', created.metadata.resourceVersion, 'other/epsilon']);
    expect((await cells(1)).slice(1, 4)).toEqual(['MODIFIED', changed.metadata.resourceVersion, 'other/epsilon']);
    expect((await cells(0))[1]).toBe('DELETED');
    expect(Number((await cells(0))[4])).toBeGreaterThan(50);
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-inspector.png') });

    await page.locator('#inspector-pause').click();
    await expect.poll(() => page.locator('#inspector-stats').textContent()).toContain('paused');
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'zeta', namespace: 'other' } });
    // Counted while paused, not drawn.
    await expect.poll(() => page.locator('#inspector-stats').textContent()).toMatch(/^5 events/);
    expect(await page.locator('#inspector-events tr', { hasText: 'other/zeta' }).count()).toBe(0);
    await page.locator('#inspector-pause').click();
    await page.locator('#inspector-events tr', { hasText: 'other/zeta' }).waitFor();

    const download = page.waitForEvent('download');
    await page.locator('#inspector-export').click();
    const path = await (await download).path();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { at: number; source: string; type: string; object: { metadata: { name: string } } });
    expect(lines.map((l) => `${l.type} ${l.object.metadata.name}`)).toEqual(['ADDED elsewhere', 'ADDED epsilon', 'MODIFIED epsilon', 'DELETED epsilon', 'ADDED zeta']);
    expect(lines.every((l) => l.source === 'configmaps' && typeof l.at === 'number')).toBe(true);

    // The rate plot: a second's count is drawn once an event of a later second comes, so events
    // are made until one has (each poll makes one more).
    let made = 0;
    await expect
      .poll(async () => {
        await cluster.client.create(builtin.configMaps, { metadata: { name: `rate-${made++}`, namespace: 'other' } });
        return Number(await page.locator('#plot-watch-rate').getAttribute('data-samples'));
      })
      .toBeGreaterThan(0);
    await page.locator('#plot-watch-rate canvas').waitFor();
  });

  it('shows nodes, pods by phase and recent events on the overview, live', async () => {
    const nodes = resource({ group: '', version: 'v1', resource: 'nodes', namespaced: false, kind: 'Node' });
    await cluster.client.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } } as never);
    await cluster.client.patchStatus(nodes, 'node-a', {
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] },
    });
    await page.locator('nav button[data-view="overview"]').click();
    const node = page.locator('#overview-nodes tr[data-node="node-a"]');
    await node.waitFor();
    expect(await node.locator('td').allTextContents()).toEqual(['node-a', 'Ready ', '4 / 3800m', '8Gi / 7Gi', '0 / 110', '0 (0%)', '0 (0%)']);
    const running = page.locator('#overview-phases [data-phase="Pending"]');
    const before = Number((await running.textContent())!.split(' ')[1]);
    await cluster.client.create(builtin.pods, { metadata: { name: 'p1', namespace: 'browser' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox' }] } } as never);
    await expect.poll(() => running.textContent()).toBe(`Pending ${before + 1}`);
    await expect.poll(() => node.locator('td').nth(4).textContent()).toBe('1 / 110');
    // Allocated: the requests of the node's unfinished pods, with their share of allocatable.
    const cpu = node.locator('td[data-allocated="cpu"]');
    const memory = node.locator('td[data-allocated="memory"]');
    await cluster.client.create(builtin.pods, {
      metadata: { name: 'p2', namespace: 'browser' },
      spec: { nodeName: 'node-a', containers: [{ name: 'a', image: 'busybox', resources: { requests: { cpu: '250m', memory: '512Mi' } } }, { name: 'b', image: 'busybox', resources: { requests: { cpu: '1', memory: '512Mi' } } }] },
    } as never);
    await expect.poll(() => cpu.textContent()).toBe('1250m (32%)');
    expect(await memory.textContent()).toBe('1Gi (14%)');
    // A finished pod no longer counts, as kubectl counts it.
    await cluster.client.patchStatus(builtin.pods, 'p2', { status: { phase: 'Succeeded' } }, { namespace: 'browser' });
    await expect.poll(() => cpu.textContent()).toBe('0 (0%)');
    await cluster.client.create(builtin.pods, {
      metadata: { name: 'p3', namespace: 'browser' },
      spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] },
    } as never);
    await expect.poll(() => cpu.textContent()).toBe('500m (13%)');
    expect(await memory.textContent()).toBe('256Mi (3%)');
    // At once: no node agent runs here to end it gracefully.
    await cluster.client.delete(builtin.pods, 'p3', { namespace: 'browser', gracePeriodSeconds: 0 });
    await expect.poll(() => cpu.textContent()).toBe('0 (0%)');
    expect(await memory.textContent()).toBe('0 (0%)');
    const events = resource({ group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' });
    await cluster.client.create(events, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'p1.1', namespace: 'browser' },
      involvedObject: { kind: 'Pod', namespace: 'browser', name: 'p1' },
      reason: 'Testing',
      message: 'seen by the dashboard',
      type: 'Warning',
      count: 1,
      lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    } as never);

    await page.locator('#overview-events tr', { hasText: 'seen by the dashboard' }).waitFor();
    if (screenshots) await page.screenshot({ path: join(docs, 'dashboard-overview.png') });
  });

  it('watches again when a view comes back (only the view on screen holds watches)', async () => {
    await page.locator('nav button[data-view="resources"]').click();
    await page.locator('li[data-type="configmaps"]').click();
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'back', namespace: 'browser' } });
    await row('browser/back').waitFor();
  });

  it('draws only the rows in view of a long table, and the others as it scrolls', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((name) => cluster.client.create(builtin.configMaps, { metadata: { name, namespace: 'many' } })));
    }
    await page.locator('#label-selector').fill('');
    await page.locator('#label-selector').press('Enter');
    await page.locator('#namespace').selectOption('many');
    await expect.poll(() => page.locator('#row-count').textContent()).toBe('400 configmaps');
    await row('many/cm-000').waitFor();
    const drawn = await page.locator('tr.row').count();
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(100);
    expect(await row('many/cm-399').count()).toBe(0);
    await page.locator('.resources .scroller').evaluate((scroller) => (scroller.scrollTop = scroller.scrollHeight));
    await row('many/cm-399').waitFor();
    expect(await row('many/cm-000').count()).toBe(0);
  });

  it('redraws only the rows in view that changed; a row changed off screen shows its change when scrolled to', async () => {
    // Marks on the drawn elements: a row drawn again is a new element, without the mark.
    for (const name of ['cm-398', 'cm-399']) await row(`many/${name}`).evaluate((element) => element.setAttribute('data-probe', 'drawn before'));
    await cluster.client.patch(builtin.configMaps, 'cm-000', { data: { off: 'screen' } }, { namespace: 'many' });
    await cluster.client.patch(builtin.configMaps, 'cm-398', { data: { in: 'view' } }, { namespace: 'many' });
    // The watch delivers in order: once cm-398's change is drawn, cm-000's was applied too.
    await expect.poll(() => row('many/cm-398').locator('td').nth(1).textContent()).toBe('1');
    expect(await row('many/cm-398').getAttribute('data-probe')).toBeNull();
    expect(await row('many/cm-399').getAttribute('data-probe')).toBe('drawn before');
    await page.locator('.resources .scroller').evaluate((scroller) => (scroller.scrollTop = 0));
    await expect.poll(() => row('many/cm-000').locator('td').nth(1).textContent()).toBe('1');
  });

  it('raised no error in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
