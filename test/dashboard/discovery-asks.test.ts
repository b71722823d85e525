/**
 * The resource picker's discovery under a slow server, made deterministic: playwright's routes
 * hold or rewrite the page's discovery reads (the page's code, the dashboard proxy and the cluster
 * are the real ones), so the orders a loaded machine produces now and then happen every run.
 *
 * - Latest ask wins (5e946a8): a CRD's first event starts an ask whose answer is held; a later ask
 *   shows the new type; the held answer, released last, lacks it and must not put back the old
 *   list.
 * - Asked again while a type is missing (c5f624f): the server's discovery lags the CRD's
 *   Established condition (every /apis answer leaves the new group out for a while); the page asks
 *   again until it shows the type, without another CRD event.
 *
 * When an answer has been used is read in the page itself: an init script wraps Response.text and,
 * one task after a tagged answer's body was read (the page's microtasks, setTypes among them, have
 * run by then), records the types the picker shows.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resource } from '../../src/client/index.js';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { launchChromium } from '../support/chromium.js';

const TAG = 'x-svc-test-answer';

let cluster: TestCluster;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;

const crds = resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false });

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ['picker'] });
  dashboard = await startDashboard({ connection: cluster.connection, port: 0 });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  // Page code as text: the tests' TypeScript has no DOM types.
  await page.addInitScript({
    content: `
      const seen = [];
      window.taggedAnswers = seen;
      const text = Response.prototype.text;
      Response.prototype.text = async function () {
        const body = await text.call(this);
        const value = this.headers.get(${JSON.stringify(TAG)});
        if (value !== null) {
          setTimeout(() => seen.push({ tag: value, types: [...document.querySelectorAll('li[data-type]')].map((li) => li.dataset.type) }), 0);
        }
        return body;
      };
    `,
  });
  await page.goto(dashboard.url);
  await page.locator('li[data-type="configmaps"]').waitFor();
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await cluster?.stop();
});

async function createCrd(group: string, plural: string, kind: string): Promise<void> {
  await cluster.client.create(crds, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, singular: kind.toLowerCase(), kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as never);
}

async function established(name: string): Promise<void> {
  await expect
    .poll(async () => {
      const crd = (await cluster.client.get(crds, name)) as { status?: { conditions?: { type: string; status: string }[] } };
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    })
    .toBe(true);
}

const taggedAnswers = (): Promise<{ tag: string; types: string[] }[]> => page.evaluate('window.taggedAnswers');
const isPath = (path: string) => (url: URL) => url.pathname === path;

describe('dashboard discovery under a slow server', () => {
  it("an earlier ask's answer that comes after a later one's does not take the new type away", async () => {
    // The first ask after the CRD's creation gets an /apis without any group (so its one further
    // read is /api/v1), and that /api/v1 answer is held until a later ask has shown the type.
    let firstAsk = true;
    let heldCore: Route | undefined;
    let coreHeld!: () => void;
    const coreIsHeld = new Promise<void>((resolve) => (coreHeld = resolve));
    const onApis = async (route: Route): Promise<void> => {
      if (firstAsk) {
        firstAsk = false;
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }) });
        return;
      }
      // Later asks start once the first one's /api/v1 is held, so that read is the first one's.
      await coreIsHeld;
      await route.continue();
    };
    const onCore = async (route: Route): Promise<void> => {
      if (heldCore !== undefined || firstAsk) {
        await route.continue();
        return;
      }
      heldCore = route;
      coreHeld();
    };
    await page.route(isPath('/apis'), onApis);
    await page.route(isPath('/api/v1'), onCore);
    try {
      await createCrd('example.com', 'widgets', 'Widget');
      await coreIsHeld;
      // A later ask for sure (the CRD's own events may all have fallen into the first one's frame):
      // a change to the CRD after it is Established.
      await established('widgets.example.com');
      await cluster.client.patch(crds, 'widgets.example.com', { metadata: { labels: { touched: 'yes' } } });
      await page.locator('li[data-type="widgets.example.com"]').waitFor();

      const response = await heldCore!.fetch();
      await heldCore!.fulfill({ response, headers: { ...response.headers(), [TAG]: 'first-ask' } });
      await expect.poll(async () => (await taggedAnswers()).filter((a) => a.tag === 'first-ask')).toHaveLength(1);
      const [after] = (await taggedAnswers()).filter((a) => a.tag === 'first-ask');
      expect(after!.types).toContain('widgets.example.com');
      expect(after!.types).toContain('deployments.apps');
      expect(after!.types).toContain('configmaps');
    } finally {
      await page.unroute(isPath('/apis'), onApis);
      await page.unroute(isPath('/api/v1'), onCore);
    }
  });

  it('asks again while discovery lacks the type of an Established CRD, and shows it once served', async () => {
    // Until released, every /apis answer is the server's without the new group, as a server
    // whose discovery lags the CRD's Established condition answers.
    let lagging = true;
    let laggingAnswers = 0;
    const onApis = async (route: Route): Promise<void> => {
      const response = await route.fetch();
      if (!lagging) {
        await route.fulfill({ response });
        return;
      }
      const list = (await response.json()) as { groups: { name: string }[] };
      laggingAnswers++;
      await route.fulfill({ response, json: { ...list, groups: list.groups.filter((g) => g.name !== 'example.org') } });
    };
    await page.route(isPath('/apis'), onApis);
    try {
      await createCrd('example.org', 'gadgets', 'Gadget');
      await established('gadgets.example.org');
      // The CRD's events lead to an ask or two; more asks, with no event to start them, are the
      // page asking again because the type is missing.
      const seen = laggingAnswers;
      await expect.poll(() => laggingAnswers).toBeGreaterThanOrEqual(seen + 4);
      expect(await page.locator('li[data-type="gadgets.example.org"]').count()).toBe(0);
      lagging = false;
      await page.locator('li[data-type="gadgets.example.org"]').waitFor();
    } finally {
      await page.unroute(isPath('/apis'), onApis);
    }
  });
});
