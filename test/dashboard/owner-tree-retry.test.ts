/**
 * The owner tree is read once when an object opens, so a read that fails for a moment must be
 * tried again, or a branch is missing until the object is opened anew (16a7f4d; it failed
 * dashboard-cluster.test.ts once in CI). The page's code and the cluster are the real ones; the
 * failures are real too: the page's first list of ReplicaSets meets a reset connection (the
 * browser's network stack, through playwright), and the server refuses the first read of the
 * ReplicaSet by name with a 429 (the test kit's refuseReads). The tree still holds
 * Deployment → ReplicaSet → Pod.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { launchChromium } from '../support/chromium.js';

const NS = 'tree';

let cluster: TestCluster;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: [NS] });
  dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  await page.goto(dashboard.url);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await cluster?.stop();
});

const labels = { app: 'web' };
const template = { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'busybox' }] } };
const ownedBy = (kind: string, owner: { metadata: { name?: string; uid?: string } }) => [
  { apiVersion: 'apps/v1', kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true },
];
/** A pod of the ReplicaSet web-1, as its loop would make it. */
const podOfWeb1 = async (name: string) =>
  cluster.client.create(builtin.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels, ownerReferences: ownedBy('ReplicaSet', await cluster.client.get(builtin.replicaSets, 'web-1', { namespace: NS })) },
    spec: template.spec,
  } as Pod);
/** The whole branch down to the opened pod. */
const branch = (pod: string) => `#owner-tree li[data-node="Deployment/web"] > ul > li[data-node="ReplicaSet/web-1"] > ul > li.self[data-node="Pod/${pod}"]`;

describe('dashboard owner tree', () => {
  it('keeps a branch whose list read failed once', async () => {
    // No controllers run: the three objects and their references are the test's own.
    const deployment = await cluster.client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template },
    } as Deployment);
    await cluster.client.create(builtin.replicaSets, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-1', namespace: NS, labels, ownerReferences: ownedBy('Deployment', deployment) },
      spec: { replicas: 1, selector: { matchLabels: labels }, template },
    } as ReplicaSet);
    await podOfWeb1('web-1-a');

    // The namespace's ReplicaSet list (the tree's way down from the Deployment): the first
    // request's connection is reset, the others reach the dashboard.
    const lists: string[] = [];
    await page.route(
      (url) => url.pathname === `/apis/apps/v1/namespaces/${NS}/replicasets`,
      (route) => {
        lists.push(route.request().url());
        return lists.length === 1 ? route.abort('connectionreset') : route.continue();
      },
    );

    await page.locator('li[data-type="pods"]').click();
    await page.locator(`#namespace option[value="${NS}"]`).waitFor({ state: 'attached' });
    await page.locator('#namespace').selectOption(NS);
    await page.locator(`tr.row[data-key="${NS}/web-1-a"]`).click();
    // The tree is drawn once, when every read is done: what it holds then is what it shows.
    const tree = page.locator('#owner-tree');
    await tree.waitFor({ timeout: 20_000 });
    expect(lists.length).toBeGreaterThanOrEqual(2);
    expect(await page.locator(branch('web-1-a')).count()).toBe(1);
  }, 60_000);

  it('keeps the owners above when the server refuses a read of one once (429, as under load)', async () => {
    await podOfWeb1('web-1-b');
    // The tree's way up from the pod reads its ReplicaSet by name: the server refuses the first
    // such read the dashboard's proxy makes, as its flow control refuses an overloaded server's.
    const refusal = cluster.refuseReads('svc-dashboard', (path) => path.split('?')[0] === `/apis/apps/v1/namespaces/${NS}/replicasets/web-1`);
    await page.locator(`tr.row[data-key="${NS}/web-1-b"]`).click();
    const self = page.locator('#owner-tree li.self[data-node="Pod/web-1-b"]');
    await self.waitFor({ timeout: 20_000 });
    expect(refusal.refused()).toBe(1);
    expect(await page.locator(branch('web-1-b')).count()).toBe(1);
  }, 60_000);
});
